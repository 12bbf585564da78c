//! String-current dispersion rate (离散率), the pure formulas (pv-domain.md, "String-current
//! dispersion rate"; docs/analytics.md has the worked figures).
//!
//! Per instant (a 5-minute rollup's averages):
//! 1. drop unused strings (module count 0) and strings that reported no current;
//! 2. normalise each current to the inverter's typical string: `I'_i = I_i × m_ref / m_i`, with
//!    `m_i` the string's module count and `m_ref` the median module count of the used strings,
//!    so a string that is shorter by design is not taken for a weak one;
//! 3. with `shadingTolerant`, leave out the single lowest normalised current (one string in a
//!    row's shadow at noon is expected on some roofs and should not colour the whole inverter);
//! 4. rate = σ / μ × 100 % (population standard deviation over the mean).
//!
//! The period's rate is the mean of the instants' rates over the instants that pass the light
//! gate (enough irradiance, or enough AC power when the station has no irradiance).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Tenant setting of the dispersion analysis (`pv_alarm_rule` key `dispersion`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
#[schema(as = DispersionSetting)]
pub struct Setting {
    /// Upper bound (%) of "excellent"; default 5.
    pub excellent_max: f64,
    /// Upper bound (%) of "good"; default 10.
    pub good_max: f64,
    /// Upper bound (%) of "attention"; above it "poor". Default 20.
    pub attention_max: f64,
    /// An instant counts when the station's weather station measures at least this (W/m²);
    /// default 200.
    pub min_irradiance_wm2: f64,
    /// Without irradiance: when the inverter's AC power is at least this share of its rating;
    /// default 0.2.
    pub min_power_ratio: f64,
    /// Leave out the single lowest string at every instant (see the module comment).
    pub shading_tolerant: bool,
    /// Days in a row (today included) an inverter must grade poor before it is warned about;
    /// default 1.
    pub poor_days: i64,
}

impl Default for Setting {
    fn default() -> Self {
        Setting {
            excellent_max: 5.0,
            good_max: 10.0,
            attention_max: 20.0,
            min_irradiance_wm2: 200.0,
            min_power_ratio: 0.2,
            shading_tolerant: false,
            poor_days: 1,
        }
    }
}

/// Why a setting is refused, in both languages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{en}")]
pub struct Invalid {
    pub zh: String,
    pub en: String,
}

fn invalid(zh: &str, en: &str) -> Invalid {
    Invalid {
        zh: zh.to_owned(),
        en: en.to_owned(),
    }
}

impl Setting {
    /// 0 < excellent < good < attention ≤ 100, non-negative light gates (power ratio ≤ 1),
    /// poorDays 1..30.
    pub fn validate(&self) -> Result<(), Invalid> {
        let all = [
            self.excellent_max,
            self.good_max,
            self.attention_max,
            self.min_irradiance_wm2,
            self.min_power_ratio,
        ];
        if all.iter().any(|v| !v.is_finite()) {
            return Err(invalid("设置值必须是数字", "Settings must be numbers"));
        }
        if !(self.excellent_max > 0.0
            && self.excellent_max < self.good_max
            && self.good_max < self.attention_max
            && self.attention_max <= 100.0)
        {
            return Err(invalid(
                "等级界限须满足 0 < 优 < 良 < 关注 ≤ 100",
                "Level bounds must satisfy 0 < excellent < good < attention ≤ 100",
            ));
        }
        if self.min_irradiance_wm2 < 0.0 || self.min_irradiance_wm2 > 2000.0 {
            return Err(invalid(
                "最低辐照度须在0到2000 W/m²之间",
                "Minimum irradiance must be from 0 to 2000 W/m²",
            ));
        }
        if self.min_power_ratio < 0.0 || self.min_power_ratio > 1.0 {
            return Err(invalid(
                "最低功率比例须在0到1之间",
                "Minimum power ratio must be from 0 to 1",
            ));
        }
        if !(1..=30).contains(&self.poor_days) {
            return Err(invalid(
                "持续天数须为1到30之间的整数",
                "Poor days must be a whole number from 1 to 30",
            ));
        }
        Ok(())
    }
}

/// Grading of a rate (the Chinese O&M platforms' four bands; bounds from the setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Excellent,
    Good,
    Attention,
    Poor,
    /// No instant passed the gate (night, no data): no figure.
    None,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Excellent => "excellent",
            Level::Good => "good",
            Level::Attention => "attention",
            Level::Poor => "poor",
            Level::None => "none",
        }
    }
}

/// excellent ≤ excellentMax < good ≤ goodMax < attention ≤ attentionMax < poor.
pub fn grade(rate_pct: Option<f64>, s: &Setting) -> Level {
    match rate_pct {
        None => Level::None,
        Some(r) if r <= s.excellent_max => Level::Excellent,
        Some(r) if r <= s.good_max => Level::Good,
        Some(r) if r <= s.attention_max => Level::Attention,
        Some(_) => Level::Poor,
    }
}

/// Median of the positive module counts (the inverter's typical string); `None` when no
/// string is in use. An even count takes the mean of the two middle values.
pub fn typical_modules(modules: &[u32]) -> Option<f64> {
    let mut used: Vec<u32> = modules.iter().copied().filter(|m| *m > 0).collect();
    if used.is_empty() {
        return None;
    }
    used.sort_unstable();
    let n = used.len();
    Some(if n % 2 == 1 {
        f64::from(used[n / 2])
    } else {
        (f64::from(used[n / 2 - 1]) + f64::from(used[n / 2])) / 2.0
    })
}

/// Normalised currents of one instant, by string (None: unused or not reported).
pub fn normalise(currents: &[Option<f64>], modules: &[u32]) -> Vec<Option<f64>> {
    let Some(m_ref) = typical_modules(modules) else {
        return vec![None; currents.len()];
    };
    currents
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let m = modules.get(i).copied().unwrap_or(0);
            match c {
                Some(c) if m > 0 && c.is_finite() => Some(c * m_ref / f64::from(m)),
                _ => None,
            }
        })
        .collect()
}

/// σ / μ × 100 of the values (population σ); with `shading_tolerant` the single lowest value is
/// left out first. `None` when fewer than two values remain or the mean is not positive.
pub fn rate_pct(values: &[f64], shading_tolerant: bool) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if shading_tolerant && !v.is_empty() {
        let lowest = v
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, _)| i)
            .unwrap_or(0);
        v.remove(lowest);
    }
    if v.len() < 2 {
        return None;
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return None;
    }
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    Some(var.sqrt() / mean * 100.0)
}

/// One instant of an inverter: its string currents (A, index = string − 1), its AC power (W)
/// and the station's irradiance (W/m²) at the same time, when known.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Instant {
    pub currents: Vec<Option<f64>>,
    pub ac_power_w: Option<f64>,
    pub irradiance_wm2: Option<f64>,
}

/// The light gate: irradiance ≥ the minimum when the station measures it, else AC power ≥
/// `minPowerRatio` × rated power; with neither known, any current at all (so a station
/// without a weather station or a rating still gets a figure, and the night does not).
pub fn passes_gate(i: &Instant, rated_w: Option<f64>, s: &Setting) -> bool {
    if let Some(g) = i.irradiance_wm2 {
        return g >= s.min_irradiance_wm2;
    }
    match (i.ac_power_w, rated_w.filter(|r| *r > 0.0)) {
        (Some(p), Some(rated)) => p >= s.min_power_ratio * rated,
        _ => i.currents.iter().flatten().any(|c| *c > 0.0),
    }
}

/// One string over the period.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StringFigure {
    /// 1-based string number (PV1 ...).
    pub index: usize,
    pub modules: u32,
    /// Mean current over the counted instants, A (null: unused or never reported).
    pub current_a: Option<f64>,
    /// Mean normalised current, A.
    pub normalised_a: Option<f64>,
    /// (normalised − mean of the strings' normalised) / that mean × 100.
    pub deviation_pct: Option<f64>,
}

/// An inverter over the period.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Mean of the counted instants' rates, %.
    pub rate_pct: Option<f64>,
    /// Instants that passed the gate and gave a rate.
    pub instants: usize,
    pub strings: Vec<StringFigure>,
}

/// The period figure of one inverter from its instants.
pub fn inverter_figure(modules: &[u32], instants: &[Instant], rated_w: Option<f64>, s: &Setting) -> Figure {
    let n = modules
        .len()
        .max(instants.iter().map(|i| i.currents.len()).max().unwrap_or(0));
    let mut rates = Vec::new();
    let mut sum_raw = vec![(0.0, 0usize); n];
    let mut sum_norm = vec![(0.0, 0usize); n];
    for inst in instants.iter().filter(|i| passes_gate(i, rated_w, s)) {
        let norm = normalise(&inst.currents, modules);
        let values: Vec<f64> = norm.iter().flatten().copied().collect();
        let Some(r) = rate_pct(&values, s.shading_tolerant) else {
            continue;
        };
        rates.push(r);
        for (k, v) in norm.iter().enumerate() {
            if let (Some(v), Some(raw)) = (v, inst.currents.get(k).copied().flatten()) {
                sum_norm[k].0 += v;
                sum_norm[k].1 += 1;
                sum_raw[k].0 += raw;
                sum_raw[k].1 += 1;
            }
        }
    }
    let mean = |(s, c): (f64, usize)| (c > 0).then(|| s / c as f64);
    let norms: Vec<Option<f64>> = sum_norm.iter().copied().map(mean).collect();
    let present: Vec<f64> = norms.iter().flatten().copied().collect();
    let inverter_mean = (!present.is_empty()).then(|| present.iter().sum::<f64>() / present.len() as f64);
    let strings = (0..n)
        .map(|k| StringFigure {
            index: k + 1,
            modules: modules.get(k).copied().unwrap_or(0),
            current_a: mean(sum_raw[k]),
            normalised_a: norms[k],
            deviation_pct: match (norms[k], inverter_mean) {
                (Some(v), Some(m)) if m > 0.0 => Some((v - m) / m * 100.0),
                _ => None,
            },
        })
        .collect();
    Figure {
        rate_pct: (!rates.is_empty()).then(|| rates.iter().sum::<f64>() / rates.len() as f64),
        instants: rates.len(),
        strings,
    }
}

/// Module counts of an inverter's strings from the registry: the comma list when it names
/// every string, else every string counted alike (1 each) — normalisation then changes nothing.
pub fn modules_of(strings_count: i64, modules_per_string: Option<&str>) -> Vec<u32> {
    let n = strings_count.clamp(0, 64) as usize;
    let listed: Option<Vec<u32>> = modules_per_string.and_then(|s| {
        s.split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| p.trim().parse::<u32>().ok())
            .collect()
    });
    match listed {
        Some(l) if l.len() == n => l,
        _ => vec![1; n],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    #[test]
    fn coefficient_of_variation_by_hand() {
        // 10, 10, 10, 6: μ = 9, σ² = (3·1 + 9)/4 = 3, σ = √3 = 1.7320508, σ/μ = 19.245009 %.
        close(
            rate_pct(&[10.0, 10.0, 10.0, 6.0], false).unwrap(),
            3f64.sqrt() / 9.0 * 100.0,
        );
        close(
            rate_pct(&[10.0, 10.0, 10.0, 6.0], false).unwrap(),
            19.245_008_972_987_527,
        );
        // Shading-tolerant drops the 6: all equal, 0 %.
        close(rate_pct(&[10.0, 10.0, 10.0, 6.0], true).unwrap(), 0.0);
        assert_eq!(rate_pct(&[5.0], false), None);
        assert_eq!(rate_pct(&[0.0, 0.0], false), None);
        assert_eq!(rate_pct(&[5.0, 4.0], true), None, "one value left");
    }

    #[test]
    fn twelve_strings_one_at_55_percent() {
        // The demo's DEMO-JS-INV-02: 11 strings at I, one at 0.55 I. μ = 11.55/12 = 0.9625,
        // σ² = (11·0.0375² + 0.4125²)/12 = 0.01546875, σ/μ = 0.12437342/0.9625 = 12.9219 %.
        let mut v = vec![8.0; 12];
        v[6] = 8.0 * 0.55;
        close(
            rate_pct(&v, false).unwrap(),
            0.015_468_75f64.sqrt() / 0.9625 * 100.0,
        );
        assert!((rate_pct(&v, false).unwrap() - 12.921_9).abs() < 1e-3);
    }

    #[test]
    fn normalisation_by_module_count() {
        // Strings of 20, 20, 18, 0 modules: median of the used (18, 20, 20) is 20. A string
        // of 18 carrying 9 A normalises to 9 × 20/18 = 10 A; the unused string drops out.
        assert_eq!(typical_modules(&[20, 20, 18, 0]), Some(20.0));
        assert_eq!(typical_modules(&[18, 20]), Some(19.0));
        assert_eq!(typical_modules(&[0, 0]), None);
        let n = normalise(&[Some(10.0), Some(10.0), Some(9.0), Some(0.3)], &[20, 20, 18, 0]);
        assert_eq!(n.len(), 4);
        close(n[2].unwrap(), 10.0);
        assert_eq!(n[3], None);
        close(
            rate_pct(&n.iter().flatten().copied().collect::<Vec<_>>(), false).unwrap(),
            0.0,
        );
    }

    #[test]
    fn grading_bounds_are_inclusive_above() {
        let s = Setting::default();
        assert_eq!(grade(Some(5.0), &s), Level::Excellent);
        assert_eq!(grade(Some(5.01), &s), Level::Good);
        assert_eq!(grade(Some(10.0), &s), Level::Good);
        assert_eq!(grade(Some(20.0), &s), Level::Attention);
        assert_eq!(grade(Some(20.01), &s), Level::Poor);
        assert_eq!(grade(None, &s), Level::None);
    }

    #[test]
    fn light_gate() {
        let s = Setting::default();
        let i = |g: Option<f64>, p: Option<f64>| Instant {
            currents: vec![Some(1.0), Some(1.0)],
            ac_power_w: p,
            irradiance_wm2: g,
        };
        assert!(passes_gate(&i(Some(200.0), None), Some(50_000.0), &s));
        // Irradiance, when measured, decides even if the power would pass.
        assert!(!passes_gate(&i(Some(199.0), Some(50_000.0)), Some(50_000.0), &s));
        assert!(passes_gate(&i(None, Some(10_000.0)), Some(50_000.0), &s));
        assert!(!passes_gate(&i(None, Some(9_999.0)), Some(50_000.0), &s));
        assert!(passes_gate(&i(None, None), None, &s), "currents flow");
    }

    #[test]
    fn period_figure_is_the_mean_of_gated_instants_and_points_at_the_culprit() {
        let s = Setting::default();
        let modules = [10, 10, 10, 10, 10, 10];
        let inst = |c: [f64; 6], g: f64| Instant {
            currents: c.iter().map(|x| Some(*x)).collect(),
            ac_power_w: None,
            irradiance_wm2: Some(g),
        };
        // Instant 1: string 6 at 4 of 8 A → μ = 44/6, values 8×5, 4; σ² = (5·(2/3)² + (10/3)²)/6
        // = (20/9 + 100/9)/6 = 20/9, σ = 1.490712, σ/μ = 1.490712/7.333333 = 20.32789 %.
        // Instant 2: all 8 A → 0 %. Instant 3 under the gate (150 W/m²) is ignored.
        let f = inverter_figure(
            &modules,
            &[
                inst([8.0, 8.0, 8.0, 8.0, 8.0, 4.0], 800.0),
                inst([8.0; 6], 800.0),
                inst([1.0, 1.0, 1.0, 1.0, 1.0, 0.1], 150.0),
            ],
            None,
            &s,
        );
        let r1 = (20.0f64 / 9.0).sqrt() / (44.0 / 6.0) * 100.0;
        close(r1, 20.327_890_704_156_2);
        assert_eq!(f.instants, 2);
        close(f.rate_pct.unwrap(), r1 / 2.0);
        // String 6 averages 6 A against the strings' mean (5·8 + 6)/6 = 7.6667: −21.7391 %.
        close(f.strings[5].current_a.unwrap(), 6.0);
        close(
            f.strings[5].deviation_pct.unwrap(),
            (6.0 - 46.0 / 6.0) / (46.0 / 6.0) * 100.0,
        );
        close(
            f.strings[0].deviation_pct.unwrap(),
            (8.0 - 46.0 / 6.0) / (46.0 / 6.0) * 100.0,
        );
        assert_eq!(f.strings[5].index, 6);
    }

    #[test]
    fn modules_from_the_registry() {
        assert_eq!(modules_of(3, Some("20,18,20")), vec![20, 18, 20]);
        assert_eq!(
            modules_of(3, Some("20,18")),
            vec![1, 1, 1],
            "a list that does not fit"
        );
        assert_eq!(modules_of(2, None), vec![1, 1]);
        assert_eq!(modules_of(2, Some("x,1")), vec![1, 1]);
    }

    #[test]
    fn setting_validation() {
        assert!(Setting::default().validate().is_ok());
        let bad = |f: fn(&mut Setting)| {
            let mut s = Setting::default();
            f(&mut s);
            s.validate().is_err()
        };
        assert!(bad(|s| s.excellent_max = 0.0));
        assert!(bad(|s| s.good_max = 5.0));
        assert!(bad(|s| s.attention_max = 100.5));
        assert!(bad(|s| s.min_irradiance_wm2 = -1.0));
        assert!(bad(|s| s.min_power_ratio = -0.1));
        assert!(bad(|s| s.poor_days = 0));
        assert!(bad(|s| s.poor_days = 31));
        assert!(bad(|s| s.good_max = f64::NAN));
    }
}
