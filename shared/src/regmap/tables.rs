//! The status and fault tables: what a device's codes mean to people.
//!
//! Both are checked against the points already parsed, so a table can never name a code that
//! the map does not read: the cloud raises alarms from these entries without looking again.

use toml::Spanned;

use super::error::{Lines, MapError};
use super::raw::{RawFault, RawStatus};
use super::schema::{FaultEntry, FaultMatch, Point, Severity, StatusEntry};
use crate::metrics::Dimension;

/// The coarse states the console knows how to show; anything else would render as blank.
const STATES: &[&str] = &[
    "running", "standby", "starting", "derating", "fault", "shutdown", "offline",
];

pub(super) fn parse_status(
    lines: &Lines,
    raw: &[Spanned<RawStatus>],
    points: &[Point],
) -> Result<Vec<StatusEntry>, MapError> {
    let mut status = Vec::new();
    for (i, s) in raw.iter().enumerate() {
        status.push(parse_status_entry(lines, i, s.get_ref(), &status)?);
    }
    if !status.is_empty() && !points.iter().any(|p| p.metric == "status_code") {
        return lines.err(
            raw[0].span(),
            "status",
            "a status table needs a status_code point",
        );
    }
    Ok(status)
}

fn parse_status_entry(
    lines: &Lines,
    i: usize,
    r: &RawStatus,
    seen: &[StatusEntry],
) -> Result<StatusEntry, MapError> {
    let Ok(code) = u32::try_from(*r.code.get_ref()) else {
        return lines.err(r.code.span(), format!("status[{i}].code"), "must be 0-4294967295");
    };
    if seen.iter().any(|e| e.code == code) {
        return lines.err(
            r.code.span(),
            format!("status[{i}].code"),
            format!("code {code} listed twice"),
        );
    }
    if let Some(state) = &r.state
        && !STATES.contains(&state.get_ref().as_str())
    {
        return lines.err(
            state.span(),
            format!("status[{i}].state"),
            format!(
                "unknown state {:?} (one of {})",
                state.get_ref(),
                STATES.join(", ")
            ),
        );
    }
    Ok(StatusEntry {
        code,
        zh: r.zh.clone(),
        en: r.en.clone(),
        state: r.state.as_ref().map(|s| s.get_ref().clone()),
    })
}

pub(super) fn parse_faults(
    lines: &Lines,
    raw: &[Spanned<RawFault>],
    points: &[Point],
) -> Result<Vec<FaultEntry>, MapError> {
    let mut faults = Vec::new();
    for (i, f) in raw.iter().enumerate() {
        faults.push(parse_fault(lines, i, f, points, &faults)?);
    }
    Ok(faults)
}

fn parse_fault(
    lines: &Lines,
    i: usize,
    f: &Spanned<RawFault>,
    points: &[Point],
    seen: &[FaultEntry],
) -> Result<FaultEntry, MapError> {
    let r = f.get_ref();
    let field = |name: &str| fault_field(i, name);
    let target = fault_point(lines, f, &field("point"), points)?;
    let point = target.metric.clone();
    let matches = fault_match(lines, i, f, target)?;
    if seen.iter().any(|e| e.point == point && e.matches == matches) {
        return lines.err(f.span(), field("code"), "listed twice");
    }
    let severity = parse_severity(lines, &r.severity, &field("severity"))?;
    let id = match r.id {
        Some(v) => {
            Some(u32::try_from(v).or_else(|_| lines.err(f.span(), field("id"), "must be 0-4294967295"))?)
        }
        None => None,
    };
    Ok(FaultEntry {
        point,
        matches,
        id,
        zh: r.zh.clone(),
        en: r.en.clone(),
        severity,
    })
}

fn fault_field(i: usize, name: &str) -> String {
    format!("fault[{i}].{name}")
}

/// The code point a fault reads: `fault_code` unless the entry names another.
fn fault_point<'p>(
    lines: &Lines,
    f: &Spanned<RawFault>,
    field: &str,
    points: &'p [Point],
) -> Result<&'p Point, MapError> {
    let r = f.get_ref();
    let point = r
        .point
        .as_ref()
        .map(|p| p.get_ref().clone())
        .unwrap_or_else(|| "fault_code".into());
    let Some(target) = points.iter().find(|p| p.metric == point) else {
        let span = r.point.as_ref().map(|p| p.span()).unwrap_or(f.span());
        return lines.err(span, field, format!("the map has no {point} point"));
    };
    if target.unit.dimension != Dimension::Code {
        return lines.err(f.span(), field, format!("{point} is not a code point"));
    }
    Ok(target)
}

/// A whole code or one bit, and the bit must exist in the point's registers.
fn fault_match(
    lines: &Lines,
    i: usize,
    f: &Spanned<RawFault>,
    target: &Point,
) -> Result<FaultMatch, MapError> {
    let r = f.get_ref();
    let field = |name: &str| fault_field(i, name);
    match (&r.code, &r.bit) {
        (Some(c), None) => Ok(FaultMatch::Code(lines.int_in(
            c,
            &field("code"),
            "0-4294967295",
        )?)),
        (None, Some(b)) => {
            let bit: u8 = lines.int_in(b, &field("bit"), "0-63")?;
            if u16::from(bit) >= target.words * 16 {
                return lines.err(
                    b.span(),
                    field("bit"),
                    format!("{} has only {} bits", target.metric, target.words * 16),
                );
            }
            Ok(FaultMatch::Bit(bit))
        }
        _ => lines.err(f.span(), field("code"), "give either `code` or `bit`"),
    }
}

fn parse_severity(lines: &Lines, v: &Spanned<String>, field: &str) -> Result<Severity, MapError> {
    match v.get_ref().as_str() {
        "critical" => Ok(Severity::Critical),
        "major" => Ok(Severity::Major),
        "minor" => Ok(Severity::Minor),
        "warning" => Ok(Severity::Warning),
        "info" => Ok(Severity::Info),
        other => lines.err(
            v.span(),
            field,
            format!("unknown severity {other:?} (critical, major, minor, warning, info)"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::refused;

    #[test]
    fn table_mistakes_are_refused_with_file_line_and_field() {
        refused(
            "severity = \"warning\"",
            "severity = \"bad\"",
            55,
            "fault[0].severity",
            "unknown severity",
        );
        refused("bit = 3", "bit = 16", 51, "fault[0].bit", "only 16 bits");
        refused(
            "state = \"running\"",
            "state = \"happy\"",
            47,
            "status[0].state",
            "unknown state",
        );
    }
}
