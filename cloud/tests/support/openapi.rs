//! A small schema-driven client for the hub's own OpenAPI document: lists its operations,
//! checks that each declares what it reads and what it answers, generates requests from the
//! declared parameters (valid and hostile, from a seeded generator) and validates answers
//! against the declared response schemas (OpenAPI 3.1 = JSON Schema 2020-12, `$ref`s resolved
//! against the document's `components`).

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

pub const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "patch", "head", "options", "trace",
];

/// One operation of the document.
#[derive(Clone, Debug)]
pub struct Op {
    pub method: String,
    pub path: String,
    pub op: Value,
    /// Parameters of the operation and of its path item, `$ref`s resolved.
    pub params: Vec<Param>,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub location: String,
    pub required: bool,
    pub schema: Value,
}

impl Op {
    pub fn label(&self) -> String {
        format!("{} {}", self.method.to_uppercase(), self.path)
    }
    pub fn path_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = self.path.as_str();
        while let Some(start) = rest.find('{') {
            let Some(end) = rest[start..].find('}') else { break };
            out.push(rest[start + 1..start + end].to_owned());
            rest = &rest[start + end + 1..];
        }
        out
    }
}

/// The document plus helpers.
pub struct Doc {
    pub doc: Value,
}

impl Doc {
    pub fn new(doc: Value) -> Doc {
        Doc { doc }
    }

    /// Follows a local `$ref` (`#/a/b`), repeatedly.
    pub fn deref<'a>(&'a self, mut v: &'a Value) -> &'a Value {
        for _ in 0..16 {
            match v.get("$ref").and_then(Value::as_str) {
                Some(r) if r.starts_with("#/") => match self.doc.pointer(&r[1..]) {
                    Some(t) => v = t,
                    None => return v,
                },
                _ => return v,
            }
        }
        v
    }

    pub fn operations(&self) -> Vec<Op> {
        let mut out = Vec::new();
        let Some(paths) = self.doc.get("paths").and_then(Value::as_object) else {
            return out;
        };
        for (path, item) in paths {
            let item = self.deref(item);
            let shared: Vec<Value> = item
                .get("parameters")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for m in METHODS {
                let Some(op) = item.get(*m) else { continue };
                let mut params: BTreeMap<(String, String), Param> = BTreeMap::new();
                let own = op
                    .get("parameters")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                for p in shared.iter().chain(own.iter()) {
                    let p = self.deref(p);
                    let name = p.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
                    let location = p.get("in").and_then(Value::as_str).unwrap_or("").to_owned();
                    let required = p.get("required").and_then(Value::as_bool).unwrap_or(false);
                    let schema = p.get("schema").cloned().unwrap_or(Value::Null);
                    params.insert(
                        (location.clone(), name.clone()),
                        Param {
                            name,
                            location,
                            required,
                            schema,
                        },
                    );
                }
                out.push(Op {
                    method: m.to_string(),
                    path: path.clone(),
                    op: op.clone(),
                    params: params.into_values().collect(),
                });
            }
        }
        out
    }

    /// The declared answer for `status` (or `default`), resolved.
    pub fn response<'a>(&'a self, op: &'a Op, status: &str) -> Option<&'a Value> {
        op.op.get("responses")?.get(status).map(|r| self.deref(r))
    }

    /// The JSON schema of the 200 answer, if any (`application/json` or `*json`).
    pub fn json_schema_200<'a>(&'a self, op: &'a Op) -> Option<&'a Value> {
        let content = self.response(op, "200")?.get("content")?.as_object()?;
        content
            .iter()
            .find(|(k, _)| k.contains("json"))
            .and_then(|(_, v)| v.get("schema"))
    }

    /// The media types of the 200 answer when it is documented as raw content only (a file such
    /// as a TOML configuration): a non-empty content map without any JSON media type.
    pub fn raw_media_200(&self, op: &Op) -> Option<Vec<String>> {
        let content = self.response(op, "200")?.get("content")?.as_object()?;
        (!content.is_empty() && !content.keys().any(|k| k.contains("json")))
            .then(|| content.keys().cloned().collect())
    }

    /// The request body's content map, if declared.
    pub fn request_content<'a>(&'a self, op: &'a Op) -> Option<&'a serde_json::Map<String, Value>> {
        let body = self.deref(op.op.get("requestBody")?);
        body.get("content")?.as_object()
    }

    /// Whether a (resolved) schema is an envelope `{code, success, data, msg}`.
    pub fn envelope_data<'a>(&'a self, schema: &'a Value) -> Option<&'a Value> {
        let s = self.resolve_all(schema);
        let props = s.get("properties")?.as_object()?;
        if props.contains_key("code") && props.contains_key("success") && props.contains_key("msg") {
            Some(props.get("data").unwrap_or(&Value::Null))
        } else {
            None
        }
    }

    /// Follows `$ref` and a single-element `allOf` wrapper.
    pub fn resolve_all<'a>(&'a self, schema: &'a Value) -> &'a Value {
        let mut s = self.deref(schema);
        for _ in 0..8 {
            match s.get("allOf").and_then(Value::as_array) {
                Some(a) if a.len() == 1 && s.get("properties").is_none() => s = self.deref(&a[0]),
                _ => break,
            }
        }
        s
    }

    /// An empty schema (`{}`, `true`, only annotations): says nothing about the value.
    pub fn is_unconstrained(&self, schema: &Value) -> bool {
        let s = self.deref(schema);
        match s {
            Value::Bool(true) | Value::Null => true,
            Value::Object(m) => !m.keys().any(|k| {
                !matches!(
                    k.as_str(),
                    "description"
                        | "title"
                        | "example"
                        | "examples"
                        | "default"
                        | "deprecated"
                        | "readOnly"
                        | "writeOnly"
                        | "$comment"
                        | "format"
                        | "nullable"
                )
            }),
            _ => false,
        }
    }

    /// A validator for `schema` whose `$ref`s point into this document.
    pub fn validator(&self, schema: &Value) -> Result<jsonschema::Validator, String> {
        let mut root = serde_json::Map::new();
        root.insert(
            "$schema".into(),
            json!("https://json-schema.org/draft/2020-12/schema"),
        );
        if let Some(c) = self.doc.get("components") {
            root.insert("components".into(), c.clone());
        }
        root.insert("allOf".into(), json!([schema]));
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&Value::Object(root))
            .map_err(|e| format!("schema does not compile: {e}"))
    }
}

/// Violations of `value` against `schema` (at most `limit`), each as `(key, detail)`: `detail` is
/// `pointer: message`; `key` is the same with array indices and numeric keys as `*` and the
/// instance masked (`value`), so it holds no run-specific ids or timestamps (the baseline's text).
pub fn violations(validator: &jsonschema::Validator, value: &Value, limit: usize) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for e in validator.iter_errors(value).take(limit) {
        let ptr = e.instance_path().to_string();
        let ptr = if ptr.is_empty() { "/".to_owned() } else { ptr };
        let detail = format!("{ptr}: {}", cut(e.to_string(), 240));
        let key = format!("{}: {}", stable_pointer(&ptr), cut(e.masked().to_string(), 240));
        if !out.iter().any(|(k, _)| *k == key) {
            out.push((key, detail));
        }
    }
    out
}

fn cut(mut msg: String, max: usize) -> String {
    if msg.len() > max {
        let mut at = max;
        while !msg.is_char_boundary(at) {
            at -= 1;
        }
        msg.truncate(at);
        msg.push('…');
    }
    msg
}

/// A JSON pointer with its numeric segments (array indices, id keys) as `*`.
pub fn stable_pointer(ptr: &str) -> String {
    if ptr == "/" {
        return ptr.to_owned();
    }
    ptr.split('/')
        .map(|s| {
            if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                "*"
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

// ---------------------------------------------------------------------------------------------
// The ratchet: `cloud/tests/openapi_known_findings.txt` lists the findings known today.

pub const BASELINE: &str = "tests/openapi_known_findings.txt";

const HEADER: &str = "\
# Known OpenAPI findings: the baseline of the ratchet in cloud/tests/openapi_conformance.rs.
# One finding a line, `completeness: ...` or `conformance: ...` (operation, [case kind], JSON
# pointer with indices as `*`, message with the value masked); a `[sqlite] ` or `[postgres] `
# prefix: seen only on that back-end. A finding not listed fails the tests (a regression); a
# listed one that no longer occurs fails them too (fixed: remove its line), so this file only
# shrinks. For the default seed and case count (OPENAPI_FUZZ_SEED / OPENAPI_FUZZ_CASES unset).
# Regenerate on SQLite, then on PostgreSQL (the second run merges: lines seen on both untagged):
#   OPENAPI_WRITE_BASELINE=1 cargo test -p pv-cloud --test openapi_conformance
#   OPENAPI_WRITE_BASELINE=1 TEST_POSTGRES_URL=... cargo test -p pv-cloud --test openapi_conformance
";

/// Both tests write the same file: one at a time.
static BASELINE_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn baseline_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(BASELINE)
}

/// `(back-end tag, finding)` of each baseline line.
fn read_baseline() -> Vec<(Option<String>, String)> {
    let text = std::fs::read_to_string(baseline_path()).unwrap_or_default();
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.strip_prefix('[').and_then(|r| r.split_once("] ")) {
            Some((tag, rest)) => (Some(tag.to_owned()), rest.to_owned()),
            None => (None, l.to_owned()),
        })
        .collect()
}

fn line_of(tag: &Option<String>, finding: &str) -> String {
    match tag {
        Some(t) => format!("[{t}] {finding}"),
        None => finding.to_owned(),
    }
}

/// Compares `found` (stable key, first full detail; keys start with `section: `) with the
/// baseline lines of `section` expected on `backend` (untagged or tagged with it). With
/// `OPENAPI_WRITE_BASELINE=1` rewrites the section instead: a finding also listed untagged or
/// for another back-end stays untagged, a new one is tagged with `backend`; an untagged line
/// not found now is kept for the other back-end(s), a line tagged `backend` not found is dropped.
/// `Err` lists the regressions and the fixed lines.
pub fn ratchet(section: &str, backend: &str, found: &BTreeMap<String, String>) -> Result<String, String> {
    let _guard = BASELINE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let prefix = format!("{section}: ");
    let all = read_baseline();
    let (mine, others): (Vec<_>, Vec<_>) = all.into_iter().partition(|(_, f)| f.starts_with(&prefix));
    let here = Some(backend.to_owned());
    if std::env::var("OPENAPI_WRITE_BASELINE").is_ok_and(|v| v == "1") {
        let mut lines: BTreeSet<String> = others.iter().map(|(t, f)| line_of(t, f)).collect();
        for key in found.keys() {
            let elsewhere = mine
                .iter()
                .any(|(t, f)| f == key && t.as_deref() != Some(backend));
            lines.insert(line_of(&if elsewhere { None } else { here.clone() }, key));
        }
        for (tag, f) in &mine {
            if found.contains_key(f) {
                continue;
            }
            match tag {
                None => {
                    let other = if backend == "postgres" {
                        "sqlite"
                    } else {
                        "postgres"
                    };
                    lines.insert(line_of(&Some(other.to_owned()), f));
                }
                Some(t) if t != backend => {
                    lines.insert(line_of(tag, f));
                }
                Some(_) => {}
            }
        }
        let mut text = HEADER.to_owned();
        for l in &lines {
            text.push_str(l);
            text.push('\n');
        }
        std::fs::write(baseline_path(), text).map_err(|e| format!("write {BASELINE}: {e}"))?;
        return Ok(format!(
            "{section}: wrote {} finding(s) of {backend} to {BASELINE}",
            found.len()
        ));
    }
    let expected: BTreeSet<&str> = mine
        .iter()
        .filter(|(t, _)| t.is_none() || *t == here)
        .map(|(_, f)| f.as_str())
        .collect();
    let mut report = String::new();
    let mut regressions = 0;
    for (key, detail) in found {
        if !expected.contains(key.as_str()) {
            regressions += 1;
            report.push_str(&format!("regression ({backend}): {key}\n    e.g. {detail}\n"));
        }
    }
    let mut fixed = 0;
    for (tag, f) in mine.iter().filter(|(t, _)| t.is_none() || *t == here) {
        if !found.contains_key(f) {
            fixed += 1;
            report.push_str(&format!("fixed: remove from the baseline: {}\n", line_of(tag, f)));
        }
    }
    if regressions + fixed == 0 {
        Ok(format!(
            "{section}: the {} finding(s) on {backend} are exactly the baseline's",
            found.len()
        ))
    } else {
        Err(format!(
            "{section} on {backend}: {regressions} finding(s) not in {BASELINE} (regressions), \
             {fixed} baseline line(s) no longer found (fixed: remove them)\n{report}"
        ))
    }
}

/// A deterministic generator (xorshift64*), so a failing case reproduces from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

/// A stable per-operation seed (FNV-1a of the label xor the run seed).
pub fn op_seed(run_seed: u64, label: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h ^ run_seed
}

/// Hostile values for a parameter or a field: wrong types, huge numbers, odd strings.
pub const HOSTILE: &[&str] = &[
    "",
    "abc",
    "-1",
    "0",
    "1.5",
    "9223372036854775807",
    "9223372036854775808",
    "99999999999999999999999999999999",
    "-9223372036854775809",
    "1e309",
    "NaN",
    "true",
    "null",
    "[]",
    "{}",
    "1,2,,3,x",
    "' OR '1'='1",
    "\"; DROP TABLE blade_user; --",
    "../../../../etc/passwd",
    "%00",
    "\u{0}",
    "☃\u{202e}ǅ\u{fffd}",
    "2026-13-45 25:61:61",
    "<script>alert(1)</script>",
];

/// Hostile JSON bodies.
pub fn hostile_bodies() -> Vec<Value> {
    vec![
        json!([]),
        json!("text"),
        json!(12),
        json!(null),
        json!({"id": "99999999999999999999999", "name": 5, "stationId": [], "ids": {"x": 1}}),
        json!({"id": -1, "current": "x", "size": 1e300, "tenantId": "' OR 1=1 --"}),
        json!({"id": "abc", "status": "∞", "name": "x".repeat(5000)}),
    ]
}

/// Names of a schema's type(s).
pub fn types_of(doc: &Doc, schema: &Value) -> BTreeSet<String> {
    let s = doc.resolve_all(schema);
    let mut out = BTreeSet::new();
    match s.get("type") {
        Some(Value::String(t)) => {
            out.insert(t.clone());
        }
        Some(Value::Array(a)) => {
            for t in a.iter().filter_map(Value::as_str) {
                out.insert(t.to_owned());
            }
        }
        _ => {
            for key in ["oneOf", "anyOf"] {
                if let Some(a) = s.get(key).and_then(Value::as_array) {
                    for v in a {
                        out.extend(types_of(doc, v));
                    }
                }
            }
        }
    }
    out
}
