//! Golden fixtures: every map in `firmware-configs/` is checked against register words typed from
//! its vendor's document (or a public capture), not against a simulator generated from the same
//! map. Each `firmware-configs/fixtures/<map-id>/<case>.toml` is served over a real Modbus TCP
//! socket by a plain register bank, polled with the agent's own `Session` (SunSpec discovery
//! included), and every value written by hand in the fixture must come out; `[absent]` metrics
//! must not. A map without any fixture fails its own test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use pv_edge::device::DeviceSpec;
use pv_edge::scheduler::{BusPolicy, Session};
use pv_edge::sim::bank::RegisterBank;
use pv_edge::transport::Transport;
use pv_shared::regmap::{Function, RegisterMap};
use pv_shared::wire::Value;
use serde::Deserialize;
use toml::Spanned;

fn configs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs")
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFixture {
    source: Spanned<String>,
    map: Spanned<String>,
    unit: Option<Spanned<i64>>,
    #[serde(default)]
    settings: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    registers: Vec<Spanned<RawBlock>>,
    expected: Spanned<BTreeMap<String, Spanned<toml::Value>>>,
    absent: Option<Spanned<RawAbsent>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBlock {
    function: Spanned<i64>,
    start: Spanned<i64>,
    words: Spanned<Vec<Spanned<i64>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAbsent {
    metrics: Vec<Spanned<String>>,
}

/// A checked fixture.
struct Fixture {
    file: PathBuf,
    map: String,
    unit: u8,
    settings: BTreeMap<String, String>,
    words: BTreeMap<(u8, Function, u16), u16>,
    expected: BTreeMap<String, Value>,
    absent: Vec<String>,
}

/// `file:line: field: message`, like a map's own errors.
fn error(file: &Path, text: &str, at: usize, field: &str, message: impl std::fmt::Display) -> String {
    let line = text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1;
    format!("{}:{line}: {field}: {message}", file.display())
}

fn parse_fixture(file: &Path, text: &str) -> Result<Fixture, String> {
    let raw: RawFixture = toml::from_str(text).map_err(|e| {
        let at = e.span().map(|s| s.start).unwrap_or(0);
        error(file, text, at, "", e.message())
    })?;
    let err =
        |span: std::ops::Range<usize>, field: &str, msg: &str| error(file, text, span.start, field, msg);
    if raw.source.get_ref().trim().is_empty() {
        return Err(err(
            raw.source.span(),
            "source",
            "must name the document or capture",
        ));
    }
    let unit = match &raw.unit {
        None => 1,
        Some(u) => u8::try_from(*u.get_ref())
            .ok()
            .filter(|u| (1..=247).contains(u))
            .ok_or_else(|| err(u.span(), "unit", "must be 1-247"))?,
    };
    let mut words = BTreeMap::new();
    for (i, b) in raw.registers.iter().enumerate() {
        let b = b.get_ref();
        let function = match b.function.get_ref() {
            3 => Function::Holding,
            4 => Function::Input,
            _ => {
                return Err(err(
                    b.function.span(),
                    &format!("registers[{i}].function"),
                    "must be 3 (holding) or 4 (input)",
                ));
            }
        };
        let start = u16::try_from(*b.start.get_ref()).map_err(|_| {
            err(
                b.start.span(),
                &format!("registers[{i}].start"),
                "must be 0-65535",
            )
        })?;
        if b.words.get_ref().is_empty() {
            return Err(err(b.words.span(), &format!("registers[{i}].words"), "is empty"));
        }
        for (k, w) in b.words.get_ref().iter().enumerate() {
            let field = format!("registers[{i}].words[{k}]");
            let word = u16::try_from(*w.get_ref()).map_err(|_| err(w.span(), &field, "must be 0-0xFFFF"))?;
            let address = u16::try_from(u32::from(start) + k as u32)
                .map_err(|_| err(w.span(), &field, "runs past register 65535"))?;
            if words.insert((unit, function, address), word).is_some() {
                return Err(err(
                    w.span(),
                    &field,
                    &format!("register {address} (function {}) given twice", function.code()),
                ));
            }
        }
    }
    let mut expected = BTreeMap::new();
    for (metric, v) in raw.expected.get_ref() {
        let value = match v.get_ref() {
            toml::Value::Float(x) => Value::Number(*x),
            toml::Value::Integer(n) => Value::Number(*n as f64),
            toml::Value::String(s) => Value::Text(s.clone()),
            _ => {
                return Err(err(
                    v.span(),
                    &format!("expected.{metric}"),
                    "must be a number or a string",
                ));
            }
        };
        expected.insert(metric.clone(), value);
    }
    if expected.is_empty() {
        return Err(err(raw.expected.span(), "expected", "lists no value"));
    }
    let absent: Vec<String> = raw
        .absent
        .as_ref()
        .map(|a| a.get_ref().metrics.iter().map(|m| m.get_ref().clone()).collect())
        .unwrap_or_default();
    for (k, m) in absent.iter().enumerate() {
        if expected.contains_key(m) {
            let span = raw
                .absent
                .as_ref()
                .map(|a| a.get_ref().metrics[k].span())
                .unwrap_or(0..0);
            return Err(err(span, &format!("absent.metrics[{k}]"), "is also expected"));
        }
    }
    // The folder names the map; the key says it again so a file copied to the wrong folder shows.
    let folder = file
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|s| s.to_str())
        .unwrap_or("");
    if raw.map.get_ref() != folder {
        return Err(err(
            raw.map.span(),
            "map",
            &format!(
                "is {:?} but the fixture sits in the folder of {folder:?}",
                raw.map.get_ref()
            ),
        ));
    }
    Ok(Fixture {
        file: file.to_path_buf(),
        map: raw.map.get_ref().clone(),
        unit,
        settings: raw
            .settings
            .iter()
            .map(|(k, v)| (k.clone(), v.get_ref().clone()))
            .collect(),
        words,
        expected,
        absent,
    })
}

/// Every fixture file, by map folder, sorted.
fn fixture_files() -> Vec<PathBuf> {
    let root = configs().join("fixtures");
    let mut files = Vec::new();
    let Ok(dirs) = std::fs::read_dir(&root) else {
        return files;
    };
    for dir in dirs
        .filter_map(|d| d.ok())
        .map(|d| d.path())
        .filter(|p| p.is_dir())
    {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        files.extend(
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml")),
        );
    }
    files.sort();
    files
}

fn same(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Number(w), Value::Number(g)) => (w - g).abs() <= 1e-9 || (w - g).abs() <= 1e-6 * w.abs(),
        (w, g) => w == g,
    }
}

/// Serves one fixture and polls it; the mismatches, one line each.
async fn check(fixture: &Fixture, map: Arc<RegisterMap>) -> Vec<String> {
    let name = fixture.file.display().to_string();
    let map = if fixture.settings.is_empty() {
        map
    } else {
        match map.with_settings(&fixture.settings) {
            Ok(m) => Arc::new(m),
            Err(e) => return vec![format!("{name}: settings: {e}")],
        }
    };
    // A typo in a metric name would otherwise read as "not published" and send the author
    // looking at registers.
    let unknown: Vec<String> = fixture
        .expected
        .keys()
        .chain(&fixture.absent)
        .filter(|m| !map.all_points.iter().any(|p| &p.metric == *m))
        .map(|m| format!("{name}: {m}: the map has no point for this metric"))
        .collect();
    if !unknown.is_empty() {
        return unknown;
    }
    let bank = RegisterBank::new(fixture.words.clone());
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => return vec![format!("{name}: cannot listen: {e}")],
    };
    let Ok(address) = listener.local_addr() else {
        return vec![format!("{name}: no local address")];
    };
    let server = tokio::spawn(bank.clone().serve_tcp(listener));
    let policy = BusPolicy {
        timeout: Duration::from_secs(2),
        retries: 0,
        ..BusPolicy::default()
    };
    let mut session = Session::new(Transport::Tcp { address }, policy);
    let spec = DeviceSpec {
        id: fixture.map.clone(),
        unit: fixture.unit,
        map,
        interval: Duration::from_secs(1),
    };
    let result = session.poll(&spec).await;
    server.abort();
    let values = match result {
        Ok(v) => v,
        Err(e) => return vec![format!("{name}: poll failed: {e}")],
    };
    let mut problems = Vec::new();
    for (metric, want) in &fixture.expected {
        match values.get(metric) {
            Some(got) if same(want, got) => {}
            Some(got) => problems.push(format!("{name}: {metric}: expected {want:?}, decoded {got:?}")),
            None => problems.push(format!("{name}: {metric}: expected {want:?}, not published")),
        }
    }
    for metric in &fixture.absent {
        if let Some(got) = values.get(metric) {
            problems.push(format!("{name}: {metric}: must be absent, decoded {got:?}"));
        }
    }
    if !problems.is_empty() {
        // Which reads the document's words did not cover: usually the reason for a missing value.
        for (unit, function, start, count) in bank.refused() {
            problems.push(format!(
                "{name}:   (refused read: unit {unit}, function {}, {start}+{count}: a register not in the fixture)",
                function.code()
            ));
        }
    }
    problems
}

#[tokio::test]
async fn every_map_decodes_its_golden_fixtures_to_the_values_typed_from_its_source() {
    let maps: BTreeMap<String, Arc<RegisterMap>> = RegisterMap::load_dir(&configs())
        .expect("maps load")
        .into_iter()
        .map(|m| (m.id.clone(), Arc::new(m)))
        .collect();
    let mut problems = Vec::new();
    let files = fixture_files();
    for file in &files {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                problems.push(format!("{}: cannot read: {e}", file.display()));
                continue;
            }
        };
        // Named as the repository names it, so a message points at the file to open.
        let shown = Path::new("firmware-configs").join(file.strip_prefix(configs()).unwrap_or(file));
        let fixture = match parse_fixture(&shown, &text) {
            Ok(f) => f,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        let Some(map) = maps.get(&fixture.map) else {
            problems.push(format!(
                "{}: map: no map {:?} in firmware-configs",
                file.display(),
                fixture.map
            ));
            continue;
        };
        problems.extend(check(&fixture, map.clone()).await);
    }
    eprintln!("{} fixtures checked", files.len());
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_map_and_every_value_of_its_settings_has_a_golden_fixture() {
    let maps = RegisterMap::load_dir(&configs()).expect("maps load");
    // What each map's fixtures choose, settings left out taking the map's default. A fixture
    // that does not parse is reported by the decoding test; here it counts for nothing.
    let mut chosen: BTreeMap<String, Vec<BTreeMap<String, String>>> = BTreeMap::new();
    for file in fixture_files() {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        if let Ok(f) = parse_fixture(&file, &text) {
            chosen.entry(f.map.clone()).or_default().push(f.settings);
        }
    }
    let mut missing = Vec::new();
    for m in &maps {
        let Some(cases) = chosen.get(&m.id) else {
            missing.push(format!(
                "{0}: no golden fixture (add firmware-configs/fixtures/{0}/<case>.toml)",
                m.id
            ));
            continue;
        };
        // Where sources disagree the map carries both readings: each must be checked.
        for s in &m.settings {
            for v in &s.values {
                let covered = cases.iter().any(|c| c.get(&s.name).unwrap_or(&s.default) == v);
                if !covered {
                    missing.push(format!(
                        "{}: no golden fixture with settings = {{ {} = \"{v}\" }}",
                        m.id, s.name
                    ));
                }
            }
        }
    }
    assert!(missing.is_empty(), "\n{}", missing.join("\n"));
}

const GOOD: &str = r#"
source = "test"
map = "acme-x1"
[[registers]]
function = 3
start = 100
words = [1, 2]
[expected]
ac_power = 1.5
"#;

fn parsed(text: &str) -> Result<Fixture, String> {
    parse_fixture(Path::new("fixtures/acme-x1/case.toml"), text)
}

#[test]
fn a_fixture_mistake_names_file_line_and_field() {
    let f = parsed(GOOD).unwrap();
    assert_eq!(f.words[&(1, Function::Holding, 101)], 2);
    assert_eq!(f.expected["ac_power"], Value::Number(1.5));
    let cases = [
        ("words = [1, 2]", "words = [1, 70000]", "7: registers[0].words[1]"),
        ("function = 3", "function = 6", "5: registers[0].function"),
        ("ac_power = 1.5", "ac_power = true", "9: expected.ac_power"),
        ("map = \"acme-x1\"", "map = \"other\"", "3: map"),
        ("start = 100", "strat = 100", "6: "),
    ];
    for (from, to, says) in cases {
        let err = parsed(&GOOD.replacen(from, to, 1)).err().unwrap_or_default();
        assert!(
            err.starts_with("fixtures/acme-x1/case.toml:") && err.contains(says),
            "{to}: {err}"
        );
    }
    let twice = GOOD.replacen(
        "words = [1, 2]",
        "words = [1, 2]\n[[registers]]\nfunction = 3\nstart = 101\nwords = [9]",
        1,
    );
    let err = parsed(&twice).err().unwrap_or_default();
    assert!(
        err.contains("registers[1].words[0]") && err.contains("given twice"),
        "{err}"
    );
}

#[test]
fn close_enough_is_relative_one_in_a_million_or_absolute_one_in_a_billion() {
    assert!(same(&Value::Number(0.995), &Value::Number(0.995_000_000_1)));
    assert!(same(&Value::Number(0.0), &Value::Number(1e-10)));
    assert!(!same(&Value::Number(8000.0), &Value::Number(8000.1)));
    assert!(!same(&Value::Number(0.995), &Value::Number(0.00995)));
    assert!(!same(&Value::Text("A".into()), &Value::Number(0.0)));
}

/// The point of the fixtures: a map with a wrong address, which its own simulator would serve
/// back consistently, fails against words placed by the vendor's table.
#[tokio::test]
async fn a_map_with_swapped_addresses_fails_its_fixture() {
    let map_file = configs().join("eastron-sdm630.toml");
    let text = std::fs::read_to_string(&map_file).expect("map");
    let swapped = text
        .replacen("address = 200,", "address = 0xAB,", 1)
        .replacen("address = 204,", "address = 200,", 1)
        .replacen("address = 0xAB,", "address = 204,", 1);
    assert_ne!(swapped, text);
    let wrong = Arc::new(RegisterMap::parse(&map_file, &swapped).expect("still a valid map"));
    let file = configs().join("fixtures/eastron-sdm630/export-3p4w.toml");
    let fixture = parse_fixture(&file, &std::fs::read_to_string(&file).expect("fixture")).expect("parses");
    let problems = check(&fixture, wrong).await;
    assert!(
        problems
            .iter()
            .any(|p| p.contains("grid_voltage_ab: expected Number(398.4)")),
        "{problems:?}"
    );
    let right = Arc::new(RegisterMap::load(&map_file).expect("map"));
    assert_eq!(check(&fixture, right.clone()).await, Vec::<String>::new());
    let mut typo = fixture;
    typo.expected.insert("ac_powr".into(), Value::Number(1.0));
    let problems = check(&typo, right).await;
    assert!(
        problems.len() == 1 && problems[0].ends_with("ac_powr: the map has no point for this metric"),
        "{problems:?}"
    );
}
