//! Map variants: settings a map offers and the points that exist only under some of them.
//!
//! Devices of one model sometimes differ in a way their registers do not announce: an inverter
//! wired three-wire serves line voltages where a four-wire one serves phase voltages at the
//! same registers; two firmware editions of a meter keep the energy counters at different
//! addresses. Where public sources disagree like that, the map carries both readings, each
//! point marked `when = { setting = "value" }`, and the gateway config picks the value per
//! device (the map's `default` otherwise). Points of one setting's different values may share
//! registers and metrics: only one of them is ever polled.

use std::collections::{BTreeMap, BTreeSet};

use toml::Spanned;

use super::error::{Lines, MapError};
use super::raw::RawSetting;
use super::schema::{Point, RegisterMap, Setting};

/// A gateway config asked for a setting the map does not offer, or a value it does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    #[error("map {map} has no setting {name:?} (it has: {known})")]
    Unknown {
        map: String,
        name: String,
        known: String,
    },
    #[error("setting {name:?} of map {map} is one of {values}, not {value:?}")]
    Value {
        map: String,
        name: String,
        value: String,
        values: String,
    },
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 32
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// The `[[setting]]` tables of a map.
pub(super) fn parse_settings(lines: &Lines, raw: &[Spanned<RawSetting>]) -> Result<Vec<Setting>, MapError> {
    let mut out: Vec<Setting> = Vec::new();
    for (i, s) in raw.iter().enumerate() {
        let r = s.get_ref();
        let field = |k: &str| format!("setting[{i}].{k}");
        let name = r.name.get_ref();
        if !is_name(name) {
            return lines.err(
                r.name.span(),
                field("name"),
                "must be 1-32 lowercase letters, digits, '_' or '-'",
            );
        }
        if out.iter().any(|o| &o.name == name) {
            return lines.err(r.name.span(), field("name"), format!("{name} is declared twice"));
        }
        let mut values = Vec::new();
        for v in r.values.get_ref() {
            if !is_name(v.get_ref()) {
                return lines.err(
                    v.span(),
                    field("values"),
                    "a value is 1-32 lowercase letters, digits, '_' or '-'",
                );
            }
            if values.contains(v.get_ref()) {
                return lines.err(v.span(), field("values"), format!("{} listed twice", v.get_ref()));
            }
            values.push(v.get_ref().clone());
        }
        if values.len() < 2 {
            return lines.err(
                r.values.span(),
                field("values"),
                "a setting offers at least two values",
            );
        }
        if !values.contains(r.default.get_ref()) {
            return lines.err(
                r.default.span(),
                field("default"),
                format!("{:?} is not one of its values", r.default.get_ref()),
            );
        }
        if r.zh.trim().is_empty() || r.en.trim().is_empty() {
            return lines.err(
                s.span(),
                field("en"),
                "zh and en must say what the setting chooses",
            );
        }
        out.push(Setting {
            name: name.clone(),
            values,
            default: r.default.get_ref().clone(),
            zh: r.zh.clone(),
            en: r.en.clone(),
        });
    }
    Ok(out)
}

/// A point's `when`: each name a declared setting, each value one of its values.
pub(super) fn parse_when(
    lines: &Lines,
    field: &str,
    raw: Option<&Spanned<BTreeMap<String, Spanned<String>>>>,
    settings: &[Setting],
) -> Result<Vec<(String, String)>, MapError> {
    let Some(raw) = raw else { return Ok(Vec::new()) };
    if raw.get_ref().is_empty() {
        return lines.err(raw.span(), field, "names no setting (leave `when` out instead)");
    }
    let mut out = Vec::new();
    for (name, value) in raw.get_ref() {
        let Some(s) = settings.iter().find(|s| &s.name == name) else {
            return lines.err(
                raw.span(),
                format!("{field}.{name}"),
                "no such [[setting]] in this map",
            );
        };
        if !s.values.contains(value.get_ref()) {
            return lines.err(
                value.span(),
                format!("{field}.{name}"),
                format!("{:?} is not one of {}", value.get_ref(), s.values.join(", ")),
            );
        }
        out.push((name.clone(), value.get_ref().clone()));
    }
    Ok(out)
}

/// Whether two points can never be polled together: some setting takes a different value in
/// each.
pub(super) fn exclusive(a: &[(String, String)], b: &[(String, String)]) -> bool {
    a.iter().any(|(n, v)| b.iter().any(|(m, w)| n == m && v != w))
}

/// The points that exist under `chosen`.
pub(super) fn select(all: &[Point], chosen: &BTreeMap<String, String>) -> Vec<Point> {
    all.iter()
        .filter(|p| p.when.iter().all(|(n, v)| chosen.get(n) == Some(v)))
        .cloned()
        .collect()
}

pub(super) fn defaults(settings: &[Setting]) -> BTreeMap<String, String> {
    settings
        .iter()
        .map(|s| (s.name.clone(), s.default.clone()))
        .collect()
}

impl RegisterMap {
    /// The map resolved for a device configured with `chosen` (settings not named keep their
    /// default). Unknown settings and values are refused, never ignored: a typo would otherwise
    /// poll the other variant's registers as if they were right.
    pub fn with_settings(&self, chosen: &BTreeMap<String, String>) -> Result<RegisterMap, SettingError> {
        let mut resolved = defaults(&self.settings);
        for (name, value) in chosen {
            let Some(s) = self.settings.iter().find(|s| &s.name == name) else {
                let known: BTreeSet<&str> = self.settings.iter().map(|s| s.name.as_str()).collect();
                return Err(SettingError::Unknown {
                    map: self.id.clone(),
                    name: name.clone(),
                    known: if known.is_empty() {
                        "none".into()
                    } else {
                        known.into_iter().collect::<Vec<_>>().join(", ")
                    },
                });
            };
            if !s.values.contains(value) {
                return Err(SettingError::Value {
                    map: self.id.clone(),
                    name: name.clone(),
                    value: value.clone(),
                    values: s.values.join(", "),
                });
            }
            resolved.insert(name.clone(), value.clone());
        }
        Ok(RegisterMap {
            points: select(&self.all_points, &resolved),
            chosen: resolved,
            ..self.clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{GOOD, parse};
    use super::*;

    /// The good map with a wiring setting: `grid_voltage_a` (four-wire) and `grid_voltage_ab`
    /// (three-wire) share register 140.
    fn variant_map() -> String {
        GOOD.replacen(
            "[[point]]\nmetric = \"status_code\"",
            r#"[[setting]]
name = "wiring"
values = ["3p4w", "3p3w"]
default = "3p4w"
zh = "接线方式"
en = "Wiring"

[[point]]
metric = "grid_voltage_a"
unit = "V"
address = 140
type = "u16"
when = { wiring = "3p4w" }

[[point]]
metric = "grid_voltage_ab"
unit = "V"
address = 140
type = "u16"
when = { wiring = "3p3w" }

[[point]]
metric = "status_code""#,
            1,
        )
    }

    fn metrics(m: &RegisterMap) -> Vec<&str> {
        m.points.iter().map(|p| p.metric.as_str()).collect()
    }

    #[test]
    fn a_setting_selects_the_points_of_its_variant_and_defaults_apply() {
        let m = parse(&variant_map()).unwrap();
        assert_eq!(m.settings[0].values, ["3p4w", "3p3w"]);
        assert!(metrics(&m).contains(&"grid_voltage_a"));
        assert!(!metrics(&m).contains(&"grid_voltage_ab"), "default is four-wire");
        let three = m
            .with_settings(&BTreeMap::from([("wiring".into(), "3p3w".into())]))
            .unwrap();
        assert!(metrics(&three).contains(&"grid_voltage_ab"));
        assert!(!metrics(&three).contains(&"grid_voltage_a"));
        assert_eq!(three.points.len(), m.points.len());
        assert_eq!(three.chosen["wiring"], "3p3w");
        assert_eq!(three.all_points, m.all_points);
    }

    #[test]
    fn unknown_settings_and_values_are_refused() {
        let m = parse(&variant_map()).unwrap();
        let e = m
            .with_settings(&BTreeMap::from([("wirng".into(), "3p3w".into())]))
            .unwrap_err();
        assert!(
            e.to_string().contains("no setting \"wirng\" (it has: wiring)"),
            "{e}"
        );
        let e = m
            .with_settings(&BTreeMap::from([("wiring".into(), "1p".into())]))
            .unwrap_err();
        assert!(e.to_string().contains("one of 3p4w, 3p3w"), "{e}");
        let plain = parse(GOOD).unwrap();
        assert!(plain.with_settings(&BTreeMap::new()).is_ok());
        assert!(
            plain
                .with_settings(&BTreeMap::from([("wiring".into(), "3p3w".into())]))
                .unwrap_err()
                .to_string()
                .contains("(it has: none)")
        );
    }

    #[test]
    fn map_mistakes_about_settings_name_line_and_field() {
        let text = variant_map();
        let refused = |from: &str, to: &str, field: &str, says: &str| {
            assert!(text.contains(from), "{from}");
            let e = parse(&text.replacen(from, to, 1)).unwrap_err();
            assert_eq!(e.field, field, "{e}");
            assert!(e.message.contains(says), "{e}");
            e.line
        };
        // Only points of different values of one setting may share registers and metrics.
        let line = refused(
            "when = { wiring = \"3p3w\" }",
            "when = { wiring = \"3p4w\" }",
            "address",
            "overlaps",
        );
        assert!(line > 20, "{line}");
        refused(
            "metric = \"grid_voltage_ab\"\nunit = \"V\"\naddress = 140\ntype = \"u16\"\nwhen = { wiring = \"3p3w\" }",
            "metric = \"grid_voltage_a\"\nunit = \"V\"\naddress = 142\ntype = \"u16\"\nwhen = { wiring = \"3p4w\" }",
            "point[3].metric",
            "mapped twice",
        );
        // A point every variant has conflicts with each variant's point on its registers.
        refused("when = { wiring = \"3p3w\" }\n", "", "address", "overlaps");
        refused(
            "when = { wiring = \"3p3w\" }",
            "when = { wiring = \"3p5w\" }",
            "point[3].when.wiring",
            "not one of 3p4w, 3p3w",
        );
        refused(
            "when = { wiring = \"3p3w\" }",
            "when = { wire = \"3p3w\" }",
            "point[3].when.wire",
            "no such [[setting]]",
        );
        refused(
            "default = \"3p4w\"",
            "default = \"1p\"",
            "setting[0].default",
            "not one of",
        );
        refused(
            "values = [\"3p4w\", \"3p3w\"]",
            "values = [\"3p4w\"]",
            "setting[0].values",
            "at least two",
        );
        let e = parse(&text.replacen(
            "when = { wiring = \"3p3w\" }",
            "when = { wiring = \"3p3w\" }\nscael = 1",
            1,
        ))
        .unwrap_err();
        assert!(e.message.contains("scael"), "{e}");
    }
}
