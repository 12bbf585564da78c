//! What a bracket alarm rule is and how it judges a sample, without the database: the variables
//! a rule may watch, the comparisons, and the condition a rule reports when it holds.
//!
//! Values are compared in the vocabulary's canonical units (`shared/src/metrics.rs`): m/s, degrees,
//! A, °C, W/m². The threshold a user types is in the unit `listVariable` shows, which is that
//! canonical unit, so no conversion happens anywhere.

use std::collections::BTreeMap;

use pv_shared::wire::Value;

use crate::alarm::condition::Condition;
use crate::alarm::store;
use crate::kernel::lang::Text;

/// The prefix of the alarm `kind` of a bracket rule: `flex:<setting id>`.
pub const KIND_PREFIX: &str = "flex:";

/// A variable a rule may watch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Variable {
    pub key: &'static str,
    pub zh: &'static str,
    pub en: &'static str,
    /// Shown after numbers; `None` for pure numbers.
    pub unit: Option<&'static str>,
}

/// `|tracker_angle − tracker_target_angle|`: not a metric of its own, derived per sample so a
/// rule can say "the row lags its set-point by more than 5°".
pub const ANGLE_DEVIATION: &str = "angle_deviation";

/// The tracker variables, in the order the console lists them. Every key but
/// [`ANGLE_DEVIATION`] is a metric of the vocabulary that a tracker controller reports itself
/// (reference map `pv-reference-tracker`) or through its sensors (see
/// `telemetry::api::flex_real::sensor_metric`).
pub const VARIABLES: &[Variable] = &[
    var("wind_speed", "风速", "Wind speed", Some("m/s")),
    var("tracker_angle", "实际角度", "Angle", Some("°")),
    var("tracker_target_angle", "目标角度", "Target angle", Some("°")),
    var(ANGLE_DEVIATION, "角度偏差", "Angle deviation", Some("°")),
    var("motor_current", "电机电流", "Motor current", Some("A")),
    var(
        "ambient_temperature",
        "环境温度",
        "Ambient temperature",
        Some("°C"),
    ),
    var("module_temperature", "组件温度", "Module temperature", Some("°C")),
    var("irradiance_poa", "辐照度", "Irradiance", Some("W/m²")),
];

const fn var(key: &'static str, zh: &'static str, en: &'static str, unit: Option<&'static str>) -> Variable {
    Variable { key, zh, en, unit }
}

pub fn variable(key: &str) -> Option<&'static Variable> {
    VARIABLES.iter().find(|v| v.key == key)
}

/// The value of a variable in a sample: a numeric metric, or for [`ANGLE_DEVIATION`] the gap
/// between the measured and the target angle. `None` when the sample lacks it (or it is not a
/// finite number): a rule says nothing about what it cannot see.
pub fn value_in(key: &str, values: &BTreeMap<String, Value>) -> Option<f64> {
    let number = |m: &str| match values.get(m) {
        Some(Value::Number(n)) if n.is_finite() => Some(*n),
        _ => None,
    };
    if key == ANGLE_DEVIATION {
        return Some((number("tracker_angle")? - number("tracker_target_angle")?).abs());
    }
    number(key)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    Gt,
    Ge,
    Lt,
    Le,
    /// Below the low threshold or above the high one (the bounds themselves are inside).
    Outside,
    /// Between the thresholds, bounds included.
    Inside,
}

impl Comparison {
    pub const ALL: [Comparison; 6] = [
        Comparison::Gt,
        Comparison::Ge,
        Comparison::Lt,
        Comparison::Le,
        Comparison::Outside,
        Comparison::Inside,
    ];

    pub fn parse(s: &str) -> Option<Comparison> {
        Comparison::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// The wire and storage form.
    pub fn as_str(self) -> &'static str {
        match self {
            Comparison::Gt => ">",
            Comparison::Ge => ">=",
            Comparison::Lt => "<",
            Comparison::Le => "<=",
            Comparison::Outside => "outside",
            Comparison::Inside => "inside",
        }
    }

    /// Whether the comparison needs the upper threshold too.
    pub fn is_range(self) -> bool {
        matches!(self, Comparison::Outside | Comparison::Inside)
    }

    /// Whether `value` meets the comparison. A range comparison without its upper bound never
    /// holds (the API refuses such a rule; a damaged row must not raise alarms on its own).
    pub fn holds(self, value: f64, low: f64, high: Option<f64>) -> bool {
        if !value.is_finite() {
            return false;
        }
        match self {
            Comparison::Gt => value > low,
            Comparison::Ge => value >= low,
            Comparison::Lt => value < low,
            Comparison::Le => value <= low,
            Comparison::Outside => high.is_some_and(|h| value < low || value > h),
            Comparison::Inside => high.is_some_and(|h| value >= low && value <= h),
        }
    }
}

/// A stored, enabled rule as the evaluator needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub id: i64,
    pub tenant_id: String,
    pub station_id: i64,
    pub variable: String,
    pub comparison: Comparison,
    pub threshold: f64,
    pub threshold_high: Option<f64>,
    pub duration_seconds: i64,
    pub level: i64,
    pub remark: Option<String>,
}

/// The setting id named by an alarm kind `flex:<id>`.
pub fn setting_id_of(kind: &str) -> Option<i64> {
    kind.strip_prefix(KIND_PREFIX)?.parse().ok()
}

/// A number as people write it: at most 4 decimals, no trailing zeros (`12`, `12.5`).
pub fn number_text(v: f64) -> String {
    let rounded = (v * 10_000.0).round() / 10_000.0;
    // -0 would print as "-0".
    if rounded == 0.0 {
        "0".into()
    } else {
        rounded.to_string()
    }
}

fn with_unit(v: f64, unit: Option<&str>) -> String {
    match unit {
        // Degrees stick to the number (50°, 25°C); other units take a space (12 m/s).
        Some(u) if u.starts_with('°') => format!("{}{u}", number_text(v)),
        Some(u) => format!("{} {u}", number_text(v)),
        None => number_text(v),
    }
}

/// `> 12 m/s`, `不在 3~12 m/s 范围内` ...: the comparison with its thresholds.
fn criterion(c: Comparison, low: f64, high: Option<f64>, unit: Option<&str>) -> Text {
    let range = || format!("{}~{}", number_text(low), with_unit(high.unwrap_or(low), unit));
    let single = |op: &str| {
        let s = format!("{op} {}", with_unit(low, unit));
        Text::owned(s.clone(), s)
    };
    match c {
        Comparison::Gt => single(">"),
        Comparison::Ge => single("≥"),
        Comparison::Lt => single("<"),
        Comparison::Le => single("≤"),
        Comparison::Outside => {
            Text::owned(format!("不在 {} 范围内", range()), format!("outside {}", range()))
        }
        Comparison::Inside => Text::owned(format!("在 {} 范围内", range()), format!("within {}", range())),
    }
}

impl Rule {
    /// The alarm kind of this rule: one open alarm per (device, rule).
    pub fn kind(&self) -> String {
        format!("{KIND_PREFIX}{}", self.id)
    }

    /// "风速 > 12 m/s 持续 30 s" / "Wind speed > 12 m/s for 30 s" (no duration part when 0).
    pub fn name(&self) -> Text {
        let var = variable(&self.variable);
        let (zh, en) = var.map_or((self.variable.as_str(), self.variable.as_str()), |v| (v.zh, v.en));
        let crit = criterion(
            self.comparison,
            self.threshold,
            self.threshold_high,
            var.and_then(|v| v.unit),
        );
        let mut name = Text::owned(format!("{zh} {}", crit.zh), format!("{en} {}", crit.en));
        if self.duration_seconds > 0 {
            name = Text::owned(
                format!("{} 持续 {} s", name.zh, self.duration_seconds),
                format!("{} for {} s", name.en, self.duration_seconds),
            );
        }
        name
    }

    /// The condition this rule reports for a sample, when its comparison holds there.
    pub fn evaluate(&self, values: &BTreeMap<String, Value>) -> Option<Condition> {
        let value = value_in(&self.variable, values)?;
        if !self.comparison.holds(value, self.threshold, self.threshold_high) {
            return None;
        }
        let unit = variable(&self.variable).and_then(|v| v.unit);
        let name = self.name();
        let now = with_unit(value, unit);
        let mut detail = Text::owned(format!("当前值 {now}"), format!("Value {now}"));
        if let Some(remark) = self.remark.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
            detail = Text::owned(
                format!("{}；备注：{remark}", detail.zh),
                format!("{}; remark: {remark}", detail.en),
            );
        }
        // The threshold shown with the alarm is the bound that was crossed.
        let threshold = match (self.comparison, self.threshold_high) {
            (Comparison::Outside, Some(high)) if value > high => high,
            _ => self.threshold,
        };
        Some(Condition {
            kind: self.kind(),
            category: "flex",
            r#type: store::TYPE_FAULT,
            level: self.level,
            // The variable names the alarm's code (at most 32 characters; every key fits).
            code: self.variable.clone(),
            name: name.zh.into_owned(),
            name_en: name.en.into_owned(),
            detail: detail.zh.into_owned(),
            detail_en: detail.en.into_owned(),
            value: Some(value),
            threshold: Some(threshold),
            hold_ms: self.duration_seconds.saturating_mul(1000),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(pairs: &[(&str, f64)]) -> BTreeMap<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), Value::Number(*v)))
            .collect()
    }

    fn rule(variable: &str, comparison: Comparison, threshold: f64, high: Option<f64>, secs: i64) -> Rule {
        Rule {
            id: 42,
            tenant_id: "000000".into(),
            station_id: 7,
            variable: variable.into(),
            comparison,
            threshold,
            threshold_high: high,
            duration_seconds: secs,
            level: 3,
            remark: None,
        }
    }

    #[test]
    fn strict_and_inclusive_comparisons_differ_only_at_the_threshold() {
        use Comparison::*;
        for (c, below, at, above) in [
            (Gt, false, false, true),
            (Ge, false, true, true),
            (Lt, true, false, false),
            (Le, true, true, false),
        ] {
            assert_eq!(c.holds(11.9, 12.0, None), below, "{c:?} below");
            assert_eq!(c.holds(12.0, 12.0, None), at, "{c:?} at");
            assert_eq!(c.holds(12.1, 12.0, None), above, "{c:?} above");
        }
    }

    #[test]
    fn range_edges_are_inside_and_not_outside() {
        use Comparison::*;
        let cases = [
            (2.9, false, true),
            (3.0, true, false),
            (7.5, true, false),
            (12.0, true, false),
            (12.1, false, true),
        ];
        for (v, inside, outside) in cases {
            assert_eq!(Inside.holds(v, 3.0, Some(12.0)), inside, "inside {v}");
            assert_eq!(Outside.holds(v, 3.0, Some(12.0)), outside, "outside {v}");
        }
        assert!(!Outside.holds(100.0, 3.0, None), "no upper bound, no alarm");
        assert!(!Inside.holds(5.0, 3.0, None));
        assert!(!Gt.holds(f64::NAN, 1.0, None));
        assert!(!Outside.holds(f64::INFINITY, 3.0, Some(12.0)));
    }

    #[test]
    fn comparisons_round_trip_their_wire_form() {
        for c in Comparison::ALL {
            assert_eq!(Comparison::parse(c.as_str()), Some(c));
        }
        assert_eq!(Comparison::parse("=="), None);
        assert_eq!(Comparison::parse("GT"), None);
        assert!(Comparison::Outside.is_range() && !Comparison::Ge.is_range());
    }

    #[test]
    fn a_rule_that_holds_reports_its_condition() {
        let r = rule("wind_speed", Comparison::Gt, 12.0, None, 30);
        let c = r
            .evaluate(&sample(&[("wind_speed", 13.25), ("tracker_angle", 10.0)]))
            .expect("holds");
        assert_eq!(c.kind, "flex:42");
        assert_eq!(c.category, "flex");
        assert_eq!(c.r#type, store::TYPE_FAULT);
        assert_eq!(c.level, 3);
        assert_eq!(c.code, "wind_speed");
        assert_eq!(c.name, "风速 > 12 m/s 持续 30 s");
        assert_eq!(c.name_en, "Wind speed > 12 m/s for 30 s");
        assert_eq!(c.detail, "当前值 13.25 m/s");
        assert_eq!(c.detail_en, "Value 13.25 m/s");
        assert_eq!((c.value, c.threshold), (Some(13.25), Some(12.0)));
        assert_eq!(c.hold_ms, 30_000);
        assert!(crate::alarm::condition::sample_kind(&c.kind));
        assert_eq!(setting_id_of(&c.kind), Some(42));

        assert!(
            r.evaluate(&sample(&[("wind_speed", 12.0)])).is_none(),
            "at the threshold"
        );
    }

    #[test]
    fn a_missing_or_textual_metric_raises_nothing() {
        let r = rule("motor_current", Comparison::Lt, 1.0, None, 0);
        assert!(r.evaluate(&sample(&[("wind_speed", 0.0)])).is_none());
        let mut text = BTreeMap::new();
        text.insert("motor_current".to_owned(), Value::Text("n/a".into()));
        assert!(r.evaluate(&text).is_none());
        let c = r.evaluate(&sample(&[("motor_current", 0.25)])).expect("holds");
        assert_eq!(c.hold_ms, 0);
        assert_eq!(c.name_en, "Motor current < 1 A", "no duration part when 0");
    }

    #[test]
    fn angle_deviation_is_derived_from_both_angles() {
        let r = rule(ANGLE_DEVIATION, Comparison::Ge, 5.0, None, 60);
        let values = sample(&[("tracker_angle", -12.5), ("tracker_target_angle", -7.5)]);
        assert_eq!(value_in(ANGLE_DEVIATION, &values), Some(5.0));
        let c = r.evaluate(&values).expect("≥ 5 holds at 5");
        assert_eq!(c.name, "角度偏差 ≥ 5° 持续 60 s");
        assert!(
            r.evaluate(&sample(&[("tracker_angle", 30.0)])).is_none(),
            "target missing"
        );
    }

    #[test]
    fn range_rules_name_their_range_and_the_crossed_bound() {
        let r = rule("ambient_temperature", Comparison::Outside, -20.0, Some(45.5), 0);
        assert_eq!(r.name().zh, "环境温度 不在 -20~45.5°C 范围内");
        assert_eq!(r.name().en, "Ambient temperature outside -20~45.5°C");
        let hot = r
            .evaluate(&sample(&[("ambient_temperature", 50.0)]))
            .expect("hot");
        assert_eq!(hot.threshold, Some(45.5));
        let cold = r
            .evaluate(&sample(&[("ambient_temperature", -25.0)]))
            .expect("cold");
        assert_eq!(cold.threshold, Some(-20.0));
        assert!(r.evaluate(&sample(&[("ambient_temperature", 45.5)])).is_none());
        let inside = rule("tracker_angle", Comparison::Inside, -1.0, Some(1.0), 600);
        assert_eq!(inside.name().en, "Angle within -1~1° for 600 s");
        assert!(inside.evaluate(&sample(&[("tracker_angle", 1.0)])).is_some());
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(number_text(12.0), "12");
        assert_eq!(number_text(0.1 + 0.2), "0.3");
        assert_eq!(number_text(-0.00001), "0");
        assert_eq!(number_text(1234.56789), "1234.5679");
        assert_eq!(setting_id_of("flex:x"), None);
        assert_eq!(setting_id_of("threshold:1"), None);
    }

    #[test]
    fn every_variable_but_the_derived_one_is_a_vocabulary_metric() {
        for v in VARIABLES {
            assert!(
                v.key == ANGLE_DEVIATION || pv_shared::metrics::lookup(v.key).is_some(),
                "{}",
                v.key
            );
            assert!(v.key.len() <= 32, "fits the alarm code");
        }
    }
}
