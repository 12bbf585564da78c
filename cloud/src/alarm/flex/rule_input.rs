//! A bracket rule as the console submits it, checked field by field (numbers may come as JSON
//! numbers or as text, as forms send them), with the refusal in both languages. Free of the
//! database: the station's visibility, its bracket and its rule count are checked by
//! `rule_store::check_station`.

use serde::Deserialize;
use serde_json::{Map, Value as Json};
use utoipa::ToSchema;

use super::bracket_rule::{self, Comparison};
use crate::alarm::store;
use crate::kernel::{ApiError, Id};
use crate::station::device::NO_STATION;

/// Longest duration a rule may ask for (a day).
pub const MAX_DURATION_SECONDS: i64 = 86_400;

/// A rule as submitted, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub station_id: i64,
    pub variable: String,
    pub comparison: Comparison,
    pub threshold: f64,
    pub threshold_high: Option<f64>,
    pub duration_seconds: i64,
    pub level: i64,
    pub enabled: bool,
    pub remark: Option<String>,
}

/// A new rule as the console submits it. What the document says; the handler reads the body
/// field by field ([`parse_draft`]) so each refusal keeps its own message, and numbers may also
/// come as text, as forms send them.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleForm {
    pub station_id: Id,
    /// A bracket variable key (`windSpeed`, `angle`...).
    pub variable: String,
    /// `>`, `>=`, `<`, `<=`, `outside`, `inside`.
    pub comparison: String,
    pub threshold: f64,
    /// The upper bound of `outside` / `inside` (required there, ignored otherwise).
    pub threshold_high: Option<f64>,
    /// 0 (at once, the default) to 86400.
    pub duration_seconds: Option<i64>,
    /// Dictionary `alarm_level`: 1 notice, 2 minor, 3 major, 4 critical.
    pub level: i64,
    /// Default true.
    pub enabled: Option<bool>,
    pub remark: Option<String>,
}

/// A change of a rule: `id` and the fields to change (the others keep their values).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleChange {
    pub id: Id,
    pub station_id: Option<Id>,
    pub variable: Option<String>,
    pub comparison: Option<String>,
    pub threshold: Option<f64>,
    pub threshold_high: Option<f64>,
    pub duration_seconds: Option<i64>,
    pub level: Option<i64>,
    pub enabled: Option<bool>,
    pub remark: Option<String>,
}

fn blank(v: Option<&Json>) -> bool {
    match v {
        None | Some(Json::Null) => true,
        Some(Json::String(s)) => s.trim().is_empty(),
        _ => false,
    }
}

fn text_of(v: &Json) -> Option<String> {
    match v {
        Json::String(s) => Some(s.trim().to_owned()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A finite number given as a JSON number or as text (forms send either).
fn number_of(v: &Json) -> Option<f64> {
    match v {
        Json::Number(n) => n.as_f64(),
        Json::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
    .filter(|n| n.is_finite())
}

/// Checks a submitted rule field by field, with the message in both languages. The station's
/// visibility and bracket are checked by `rule_store::check_station` (they need the database).
pub fn parse_draft(body: &Map<String, Json>) -> Result<Draft, ApiError> {
    let station_id = if blank(body.get("stationId")) {
        return Err(ApiError::bad_request("请选择电站", "Please select the station"));
    } else {
        body.get("stationId")
            .and_then(text_of)
            .and_then(|s| s.parse::<Id>().ok())
            .ok_or(ApiError::BadRequest(NO_STATION))?
            .0
    };

    let variable = match body.get("variable").and_then(text_of) {
        Some(v) if !v.is_empty() => v,
        _ => {
            return Err(ApiError::bad_request(
                "请选择监测变量",
                "Please select the variable",
            ));
        }
    };
    if bracket_rule::variable(&variable).is_none() {
        let keys: Vec<&str> = bracket_rule::VARIABLES.iter().map(|v| v.key).collect();
        return Err(ApiError::bad_request(
            format!("监测变量无效：{variable}"),
            format!("Unknown variable {variable} ({})", keys.join(", ")),
        ));
    }

    let comparison = match body.get("comparison").and_then(text_of) {
        Some(c) if !c.is_empty() => Comparison::parse(&c).ok_or_else(|| {
            ApiError::bad_request(
                format!("比较方式无效：{c}"),
                format!("Unknown comparison {c} (>, >=, <, <=, outside, inside)"),
            )
        })?,
        _ => {
            return Err(ApiError::bad_request(
                "请选择比较方式",
                "Please select the comparison",
            ));
        }
    };

    if blank(body.get("threshold")) {
        return Err(ApiError::bad_request("请输入阈值", "Please enter the threshold"));
    }
    let threshold = body.get("threshold").and_then(number_of).ok_or_else(|| {
        ApiError::bad_request("阈值：请输入正确的数字", "Threshold: please enter a valid number")
    })?;

    let threshold_high = if comparison.is_range() {
        if blank(body.get("thresholdHigh")) {
            return Err(ApiError::bad_request(
                "请输入阈值上限",
                "Please enter the upper threshold",
            ));
        }
        let high = body.get("thresholdHigh").and_then(number_of).ok_or_else(|| {
            ApiError::bad_request(
                "阈值上限：请输入正确的数字",
                "Upper threshold: please enter a valid number",
            )
        })?;
        if high <= threshold {
            return Err(ApiError::bad_request(
                "阈值上限必须大于阈值",
                "The upper threshold must be greater than the threshold",
            ));
        }
        Some(high)
    } else {
        // A single-threshold rule has no upper bound, whatever the form left in the field.
        None
    };

    // Absent means "at once", as the form's default.
    let duration_seconds = if blank(body.get("durationSeconds")) {
        0
    } else {
        let d = body.get("durationSeconds").and_then(number_of).ok_or_else(|| {
            ApiError::bad_request(
                "持续时间：请输入正确的数字",
                "Duration: please enter a valid number",
            )
        })?;
        if d < 0.0 {
            return Err(ApiError::bad_request(
                "持续时间不能为负数",
                "The duration must not be negative",
            ));
        }
        if d.fract() != 0.0 {
            return Err(ApiError::bad_request(
                "持续时间必须是整数秒",
                "The duration must be whole seconds",
            ));
        }
        if d > MAX_DURATION_SECONDS as f64 {
            return Err(ApiError::bad_request(
                format!("持续时间不能超过{MAX_DURATION_SECONDS}秒"),
                format!("The duration must be at most {MAX_DURATION_SECONDS} s"),
            ));
        }
        d as i64
    };

    let level = if blank(body.get("level")) {
        return Err(ApiError::bad_request(
            "请选择告警级别",
            "Please select the alarm level",
        ));
    } else {
        let raw = body.get("level").and_then(text_of).unwrap_or_default();
        raw.parse::<i64>()
            .ok()
            .filter(|l| (store::LEVEL_NOTICE..=store::LEVEL_CRITICAL).contains(l))
            .ok_or_else(|| {
                ApiError::bad_request(
                    format!("告警级别无效：{raw}"),
                    format!("Invalid alarm level {raw} (1 notice .. 4 critical)"),
                )
            })?
    };

    let enabled = match body.get("enabled") {
        None | Some(Json::Null) => true,
        Some(Json::Bool(b)) => *b,
        Some(v) => match text_of(v).as_deref() {
            Some("1" | "true") => true,
            Some("0" | "false") => false,
            _ => {
                return Err(ApiError::bad_request(
                    format!("是否启用无效：{v}"),
                    format!("Invalid enabled: {v} (true or false)"),
                ));
            }
        },
    };

    let remark = match body.get("remark") {
        None | Some(Json::Null) => None,
        Some(v) => {
            let r = text_of(v).ok_or_else(|| {
                ApiError::bad_request(format!("备注无效：{v}"), format!("Invalid remark: {v}"))
            })?;
            if r.chars().count() > 500 {
                return Err(ApiError::bad_request(
                    "备注长度不能超过500个字符",
                    "The remark must be at most 500 characters",
                ));
            }
            Some(r).filter(|r| !r.is_empty())
        }
    };

    Ok(Draft {
        station_id,
        variable,
        comparison,
        threshold,
        threshold_high,
        duration_seconds,
        level,
        enabled,
        remark,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::kernel::lang::Lang;

    fn body(v: Json) -> Map<String, Json> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn refusal(v: Json) -> (String, String) {
        match parse_draft(&body(v)) {
            Err(ApiError::BadRequest(t)) => (t.get(Lang::Zh).to_owned(), t.get(Lang::En).to_owned()),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn drafts_are_parsed_from_numbers_or_text() {
        let d = parse_draft(&body(json!({
            "stationId": "7", "variable": "wind_speed", "comparison": ">=", "threshold": "12.5",
            "thresholdHigh": 99, "durationSeconds": "30", "level": "3", "enabled": 0, "remark": " gusts "
        })))
        .expect("valid");
        assert_eq!(
            d,
            Draft {
                station_id: 7,
                variable: "wind_speed".into(),
                comparison: Comparison::Ge,
                threshold: 12.5,
                threshold_high: None,
                duration_seconds: 30,
                level: 3,
                enabled: false,
                remark: Some("gusts".into()),
            }
        );
        let d = parse_draft(&body(json!({
            "stationId": 7, "variable": "tracker_angle", "comparison": "outside", "threshold": -50,
            "thresholdHigh": 50, "level": 1
        })))
        .expect("valid");
        assert_eq!(
            (d.threshold_high, d.duration_seconds, d.enabled),
            (Some(50.0), 0, true)
        );
    }

    #[test]
    fn bad_drafts_are_refused_in_both_languages() {
        let ok = json!({"stationId": "7", "variable": "wind_speed", "comparison": ">", "threshold": 12,
            "durationSeconds": 0, "level": 2});
        let with = |patch: Json| {
            let mut b = ok.clone();
            for (k, v) in patch.as_object().cloned().unwrap_or_default() {
                b[k] = v;
            }
            b
        };
        for (patch, zh, en) in [
            (
                json!({"variable": "humidity"}),
                "监测变量无效：humidity",
                "Unknown variable humidity",
            ),
            (
                json!({"variable": ""}),
                "请选择监测变量",
                "Please select the variable",
            ),
            (
                json!({"comparison": "=="}),
                "比较方式无效：==",
                "Unknown comparison ==",
            ),
            (
                json!({"threshold": null}),
                "请输入阈值",
                "Please enter the threshold",
            ),
            (
                json!({"threshold": "abc"}),
                "阈值：请输入正确的数字",
                "Threshold: please",
            ),
            (
                json!({"comparison": "inside", "thresholdHigh": null}),
                "请输入阈值上限",
                "Please enter the upper threshold",
            ),
            (
                json!({"comparison": "outside", "thresholdHigh": 12}),
                "阈值上限必须大于阈值",
                "The upper threshold must be greater",
            ),
            (
                json!({"durationSeconds": -1}),
                "持续时间不能为负数",
                "The duration must not be negative",
            ),
            (
                json!({"durationSeconds": 1.5}),
                "持续时间必须是整数秒",
                "whole seconds",
            ),
            (
                json!({"durationSeconds": 86_401}),
                "持续时间不能超过86400秒",
                "at most 86400 s",
            ),
            (json!({"level": 5}), "告警级别无效：5", "Invalid alarm level 5"),
            (json!({"level": 0}), "告警级别无效：0", "Invalid alarm level 0"),
            (
                json!({"level": null}),
                "请选择告警级别",
                "Please select the alarm level",
            ),
            (
                json!({"stationId": null}),
                "请选择电站",
                "Please select the station",
            ),
            (json!({"stationId": "x"}), "电站不存在", "No such station"),
            (
                json!({"enabled": "maybe"}),
                "是否启用无效：\"maybe\"",
                "Invalid enabled",
            ),
            (
                json!({"remark": "r".repeat(501)}),
                "备注长度不能超过500个字符",
                "at most 500",
            ),
        ] {
            let (z, e) = refusal(with(patch.clone()));
            assert_eq!(z, zh, "{patch}");
            assert!(e.contains(en), "{patch}: {e}");
        }
    }
}
