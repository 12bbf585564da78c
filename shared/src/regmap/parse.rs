//! From TOML text to a checked [`RegisterMap`]: the device header, the bus limits and the SunSpec
//! model list here; one point entry, the overlap check and the code tables in their own modules.
//!
//! The order of the checks is part of the contract: a map with several mistakes reports the
//! first one in this order, and tests rely on which one that is.

use std::path::{Path, PathBuf};

use toml::Spanned;

use super::error::{Lines, MapError};
use super::overlap::check_overlaps;
use super::raw::{RawDevice, RawLimits, RawMap, RawPoint, RawSunSpec};
use super::schema::{
    DeviceKind, Function, Limits, Order, Point, RegisterMap, Sentinels, Setting, SunSpecModel,
};
use super::{point, settings, tables};

impl RegisterMap {
    /// Reads and checks the map in `path`.
    pub fn load(path: &Path) -> Result<RegisterMap, MapError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| MapError::whole_file(path, format!("cannot read: {e}")))?;
        RegisterMap::parse(path, &text)
    }

    /// Loads every `*.toml` map of a folder, sorted by file name.
    pub fn load_dir(dir: &Path) -> Result<Vec<RegisterMap>, MapError> {
        let entries =
            std::fs::read_dir(dir).map_err(|e| MapError::whole_file(dir, format!("cannot list: {e}")))?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        files.iter().map(|f| RegisterMap::load(f)).collect()
    }

    /// Checks map text; `path` names it in errors and gives the map its id.
    pub fn parse(path: &Path, text: &str) -> Result<RegisterMap, MapError> {
        let lines = Lines { file: path, text };
        let raw: RawMap = toml::from_str(text).map_err(|e| MapError {
            file: path.to_path_buf(),
            line: e.span().map(|s| lines.line(s.start)).unwrap_or(0),
            field: String::new(),
            message: e.message().to_string(),
        })?;
        let id = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();

        let device = raw.device.get_ref();
        let kind = parse_device(&lines, device)?;
        let limits = parse_limits(&lines, raw.limits.as_ref())?;
        let sunspec = parse_sunspec(&lines, raw.sunspec.as_ref())?;
        let settings = settings::parse_settings(&lines, &raw.setting)?;
        let all_points = parse_points(&lines, &raw.point, &limits, &sunspec, &settings)?;
        let status = tables::parse_status(&lines, &raw.status, &all_points)?;
        let faults = tables::parse_faults(&lines, &raw.fault, &all_points)?;
        let chosen = settings::defaults(&settings);

        Ok(RegisterMap {
            file: path.to_path_buf(),
            id,
            manufacturer: device.manufacturer.get_ref().clone(),
            model: device.model.get_ref().clone(),
            kind,
            source: device.source.get_ref().clone(),
            match_model: device.match_model.iter().map(|m| m.get_ref().clone()).collect(),
            limits,
            points: settings::select(&all_points, &chosen),
            settings,
            chosen,
            sunspec,
            all_points,
            status,
            faults,
        })
    }
}

/// The device's kind; the descriptive fields must say something, since a map without its
/// source cannot be checked against the manual later.
fn parse_device(lines: &Lines, device: &RawDevice) -> Result<DeviceKind, MapError> {
    let kind = match device.kind.get_ref().as_str() {
        "inverter" => DeviceKind::Inverter,
        "meter" => DeviceKind::Meter,
        "weather" => DeviceKind::Weather,
        "tracker" => DeviceKind::Tracker,
        other => {
            return lines.err(
                device.kind.span(),
                "device.kind",
                format!("unknown kind {other:?} (inverter, meter, weather, tracker)"),
            );
        }
    };
    for (field, value) in [
        ("device.manufacturer", &device.manufacturer),
        ("device.model", &device.model),
        ("device.source", &device.source),
    ] {
        if value.get_ref().trim().is_empty() {
            return lines.err(value.span(), field, "must not be empty");
        }
    }
    for pattern in &device.match_model {
        if pattern.get_ref().trim_matches(['*', '?', ' ']).is_empty() {
            return lines.err(
                pattern.span(),
                "device.match_model",
                "a pattern must name something besides wildcards",
            );
        }
    }
    Ok(kind)
}

/// Bus limits, with the defaults of a plain Modbus device for what the map leaves out.
fn parse_limits(lines: &Lines, raw: Option<&Spanned<RawLimits>>) -> Result<Limits, MapError> {
    let mut limits = Limits {
        max_block: 125,
        function: Function::Holding,
        word_order: Order::Big,
        byte_order: Order::Big,
        max_gap: 0,
        sentinels: Sentinels::None,
    };
    let Some(raw) = raw else { return Ok(limits) };
    let r = raw.get_ref();
    if let Some(v) = &r.max_block {
        match u16::try_from(*v.get_ref()) {
            Ok(n @ 1..=125) => limits.max_block = n,
            _ => return lines.err(v.span(), "limits.max_block", "must be 1-125 (the Modbus maximum)"),
        }
    }
    if let Some(v) = &r.function {
        limits.function = parse_function(lines, v, "limits.function")?;
    }
    if let Some(v) = &r.word_order {
        limits.word_order = parse_order(lines, v, "limits.word_order")?;
    }
    if let Some(v) = &r.byte_order {
        limits.byte_order = parse_order(lines, v, "limits.byte_order")?;
    }
    if let Some(v) = &r.max_gap {
        match u16::try_from(*v.get_ref()) {
            Ok(n) if n < 125 => limits.max_gap = n,
            _ => return lines.err(v.span(), "limits.max_gap", "must be 0-124"),
        }
    }
    if let Some(v) = &r.sentinels {
        limits.sentinels = match v.get_ref().as_str() {
            "none" => Sentinels::None,
            "sunspec" => Sentinels::SunSpec,
            other => {
                return lines.err(
                    v.span(),
                    "limits.sentinels",
                    format!("unknown {other:?} (none, sunspec)"),
                );
            }
        };
    }
    Ok(limits)
}

/// The points of a map, each entry expanded, then all of them checked against each other.
fn parse_points(
    lines: &Lines,
    raw: &[Spanned<RawPoint>],
    limits: &Limits,
    sunspec: &[SunSpecModel],
    settings: &[Setting],
) -> Result<Vec<Point>, MapError> {
    let mut points = Vec::new();
    for (i, p) in raw.iter().enumerate() {
        point::parse_point(lines, i, p, limits, sunspec, settings, &mut points)?;
    }
    if points.is_empty() {
        return lines.err(0..0, "point", "the map has no points");
    }
    check_overlaps(lines, &points)?;
    Ok(points)
}

/// A read function code: the map's default, or one point's own.
pub(super) fn parse_function(lines: &Lines, v: &Spanned<i64>, field: &str) -> Result<Function, MapError> {
    match v.get_ref() {
        3 => Ok(Function::Holding),
        4 => Ok(Function::Input),
        other => lines.err(
            v.span(),
            field,
            format!("function code {other} cannot read registers (3 or 4)"),
        ),
    }
}

fn parse_order(lines: &Lines, v: &Spanned<String>, field: &str) -> Result<Order, MapError> {
    match v.get_ref().as_str() {
        "big" => Ok(Order::Big),
        "little" => Ok(Order::Little),
        other => lines.err(v.span(), field, format!("unknown order {other:?} (big, little)")),
    }
}

/// The SunSpec models the points may address; a `[sunspec]` table that lists none is a mistake,
/// not a plain map.
fn parse_sunspec(lines: &Lines, raw: Option<&Spanned<RawSunSpec>>) -> Result<Vec<SunSpecModel>, MapError> {
    let mut sunspec = Vec::new();
    let Some(s) = raw else { return Ok(sunspec) };
    for (i, m) in s.get_ref().models.iter().enumerate() {
        let r = m.get_ref();
        let (Ok(id), Ok(length)) = (u16::try_from(r.id), u16::try_from(r.length)) else {
            return lines.err(
                m.span(),
                format!("sunspec.models[{i}]"),
                "id and length must be 0-65535",
            );
        };
        if sunspec.iter().any(|x: &SunSpecModel| x.id == id) {
            return lines.err(
                m.span(),
                format!("sunspec.models[{i}]"),
                format!("model {id} listed twice"),
            );
        }
        let mut accept = Vec::new();
        for a in &r.accept {
            match u16::try_from(*a) {
                Ok(a) => accept.push(a),
                Err(_) => {
                    return lines.err(
                        m.span(),
                        format!("sunspec.models[{i}].accept"),
                        "ids must be 0-65535",
                    );
                }
            }
        }
        sunspec.push(SunSpecModel {
            id,
            length,
            accept,
            extension: r.extension,
        });
    }
    if sunspec.is_empty() {
        return lines.err(s.span(), "sunspec.models", "lists no model");
    }
    Ok(sunspec)
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{GOOD, parse, refused};
    use super::super::schema::{Function, Location, Order};

    #[test]
    fn a_good_map_loads_with_repeats_expanded_and_defaults_applied() {
        let m = parse(GOOD).unwrap();
        assert_eq!(m.id, "acme-x1");
        assert_eq!(m.limits.function, Function::Input);
        assert_eq!(m.limits.word_order, Order::Little);
        assert_eq!(m.limits.byte_order, Order::Big);
        assert_eq!(m.points.len(), 1 + 8 + 2);
        let pv8 = m.points.iter().find(|p| p.metric == "pv8_voltage").unwrap();
        assert_eq!(pv8.location, Location::Absolute(124));
        assert_eq!(pv8.function, Function::Input);
        assert_eq!(
            m.points
                .iter()
                .find(|p| p.metric == "status_code")
                .unwrap()
                .function,
            Function::Holding
        );
        let ac = &m.points[0];
        assert_eq!(ac.factor(), 1.0, "0.001 kW per count is 1 W per count");
        assert_eq!(m.status_of(512).unwrap().en, "On-grid");
        assert_eq!(m.faults_of("fault_word1", 0b1000)[0].id, Some(2012));
        assert!(m.faults_of("fault_word1", 0b0100).is_empty());
    }

    #[test]
    fn limit_mistakes_are_refused_with_file_line_and_field() {
        refused("function = 4", "function = 6", 10, "limits.function", "3 or 4");
        refused(
            "max_block = 10",
            "max_block = 126",
            9,
            "limits.max_block",
            "1-125",
        );
    }

    #[test]
    fn unknown_keys_and_syntax_errors_carry_the_line() {
        let err = parse(&GOOD.replacen("scale = 0.001", "scael = 0.001", 1)).unwrap_err();
        assert_eq!(err.line, 18, "{err}");
        assert!(err.message.contains("scael"), "{err}");
        let err = parse(&GOOD.replacen("address = 100", "address = ", 1)).unwrap_err();
        assert_eq!(err.line, 16, "{err}");
    }
}
