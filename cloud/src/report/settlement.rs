//! The electricity bill of a station (电费结算), the pure arithmetic: energy per time-of-use
//! segment × the tariff version in force on each day, by grid-connection type. Formulas, sources
//! and worked examples: `docs/reports.md`, "Bill settlement".
//!
//! - **Full feed-in** (全额上网): every kWh generated is sold at the feed-in price of its day.
//! - **Self-consumption with surplus fed in** (自发自用余电上网): per interval, self-consumed =
//!   max(generation − export, 0) is worth the grid price it saves (the time-of-use price of that
//!   minute, times the contract's discount factor), export is sold at the feed-in price.
//! - **Full self-consumption** (全部自用): all generation is self-consumed.
//!
//! Energy is known per interval (an hour or five minutes of the rollups); where a tariff segment
//! boundary falls inside an interval, the interval's energy is shared by minutes (energy taken as
//! even within the interval). A segment may wrap past midnight (22:00-06:00). Past days keep the
//! tariff version that was in force on them, and a day without any version (before the first
//! effective date) is listed as unpriced instead of being counted as zero.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use serde::Serialize;
use utoipa::ToSchema;

pub const MINUTE_MS: i64 = 60_000;
pub const DAY_MINUTES: i64 = 24 * 60;
const DAY_MS: i64 = DAY_MINUTES * MINUTE_MS;

/// `connected_type` dictionary keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum GridConnection {
    /// "1" 全额上网.
    FullFeedIn,
    /// "2" 自发自用余电上网.
    SelfUseSurplus,
    /// "3" 全部自用.
    FullSelfUse,
}

impl GridConnection {
    /// The dictionary key; a station without one is billed as full feed-in (the plain case of
    /// a generation-only plant), which the bill says through `gridConnection`.
    pub fn from_key(key: Option<&str>) -> GridConnection {
        match key {
            Some("2") => GridConnection::SelfUseSurplus,
            Some("3") => GridConnection::FullSelfUse,
            _ => GridConnection::FullFeedIn,
        }
    }
}

/// One time-of-use segment of a tariff version, minutes of the local day. `end` may be below
/// `start` for a segment that runs past midnight; `end` = 1440 is the end of the day.
#[derive(Debug, Clone, PartialEq)]
pub struct TouSegment {
    pub start: i64,
    pub end: i64,
    /// `price_segment_type` key: 1 sharp, 2 peak, 3 flat, 4 valley.
    pub kind: String,
    pub price: f64,
}

impl TouSegment {
    /// Minutes of `[from, to)` (within one day, 0..=1440) this segment covers.
    fn overlap(&self, from: i64, to: i64) -> i64 {
        let part = |a: i64, b: i64| (to.min(b) - from.max(a)).max(0);
        if self.start < self.end {
            part(self.start, self.end)
        } else {
            part(self.start, DAY_MINUTES) + part(0, self.end)
        }
    }
}

/// A tariff version: in force from `effective` until the next version's date.
#[derive(Debug, Clone, PartialEq)]
pub struct TariffVersion {
    pub effective: NaiveDate,
    pub segments: Vec<TouSegment>,
}

/// The version in force on `day`: the latest effective date not after it.
pub fn version_on(versions: &[TariffVersion], day: NaiveDate) -> Option<&TariffVersion> {
    versions
        .iter()
        .filter(|v| v.effective <= day)
        .max_by_key(|v| v.effective)
}

/// A dated price (feed-in / settlement price history): in force from `effective`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DatedPrice {
    pub effective: NaiveDate,
    pub price: f64,
}

pub fn price_on(prices: &[DatedPrice], day: NaiveDate) -> Option<f64> {
    prices
        .iter()
        .filter(|p| p.effective <= day)
        .max_by_key(|p| p.effective)
        .map(|p| p.price)
}

/// Energy measured over one interval `[start, start + len)` (UTC epoch ms), Wh. `None` = not
/// measured (no counter in that interval), as opposed to 0.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Interval {
    pub start: i64,
    pub len: i64,
    pub generation_wh: Option<f64>,
    pub export_wh: Option<f64>,
    pub import_wh: Option<f64>,
}

/// What the bill needs to know about the station.
#[derive(Debug, Clone, PartialEq)]
pub struct Terms {
    pub connection: GridConnection,
    /// The station clock, ms ahead of UTC.
    pub offset_ms: i64,
    /// Grid price versions (`pv_electric_price`).
    pub tariff: Vec<TariffVersion>,
    /// Feed-in price history (`pv_station_price`), else the station's feed-in tariff from its
    /// grid-connection day.
    pub feed_in: Vec<DatedPrice>,
    /// Share of the grid price the consumer pays for self-consumed energy (1 = no discount; an
    /// energy-performance contract at 15 % off is 0.85).
    pub discount_factor: f64,
}

/// Energy and value of one time-of-use segment type over the period.
#[derive(Debug, Clone, PartialEq, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SegmentLine {
    /// `price_segment_type` key.
    pub kind: String,
    /// kWh generated in this segment's hours.
    pub generation_kwh: f64,
    /// kWh of it used on site (0 under full feed-in).
    pub self_consumed_kwh: f64,
    /// kWh of it fed into the grid.
    pub exported_kwh: f64,
    /// Value of the self-consumed kWh at the segment's grid price × discount.
    pub self_consumed_amount: f64,
    /// Value of the exported kWh at the feed-in price.
    pub exported_amount: f64,
    /// Lowest and highest grid price of the segment over the period (versions may differ).
    pub min_price: Option<f64>,
    pub max_price: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bill {
    /// By segment type key, in key order (sharp, peak, flat, valley).
    pub segments: BTreeMap<String, SegmentLine>,
    pub generation_kwh: f64,
    pub self_consumed_kwh: f64,
    pub exported_kwh: f64,
    pub imported_kwh: f64,
    pub self_consumed_amount: f64,
    pub exported_amount: f64,
    /// Local days with energy but no grid price version (self-consumed energy not valued).
    pub unpriced_days: Vec<NaiveDate>,
    /// Local days with exported energy but no feed-in price.
    pub no_feed_in_days: Vec<NaiveDate>,
    /// kWh left unvalued for the two reasons above.
    pub unpriced_kwh: f64,
    /// Intervals where the meter's export exceeded generation (export capped at generation).
    pub export_capped_intervals: usize,
}

impl Bill {
    pub fn amount(&self) -> f64 {
        self.self_consumed_amount + self.exported_amount
    }
}

fn local_day(ms: i64, offset_ms: i64) -> NaiveDate {
    NaiveDate::default() + chrono::Duration::days((ms + offset_ms).div_euclid(DAY_MS))
}

/// Splits `[start, start + len)` into its parts within single local days: (day, first minute,
/// end minute, share of the interval).
fn day_parts(start: i64, len: i64, offset_ms: i64) -> Vec<(NaiveDate, i64, i64, f64)> {
    let mut out = Vec::new();
    if len <= 0 {
        return out;
    }
    let mut at = start;
    let end = start + len;
    while at < end {
        let day = local_day(at, offset_ms);
        let day_start = (at + offset_ms).div_euclid(DAY_MS) * DAY_MS - offset_ms;
        let until = end.min(day_start + DAY_MS);
        let from_min = (at - day_start) as f64 / MINUTE_MS as f64;
        let to_min = (until - day_start) as f64 / MINUTE_MS as f64;
        out.push((
            day,
            from_min.floor() as i64,
            to_min.ceil() as i64,
            (until - at) as f64 / len as f64,
        ));
        at = until;
    }
    out
}

/// The bill of `intervals` under `terms`.
pub fn settle(intervals: &[Interval], terms: &Terms) -> Bill {
    let mut bill = Bill::default();
    let mut unpriced: std::collections::BTreeSet<NaiveDate> = Default::default();
    let mut no_feed_in: std::collections::BTreeSet<NaiveDate> = Default::default();
    for iv in intervals {
        let generation = iv.generation_wh.unwrap_or(0.0).max(0.0) / 1000.0;
        let import = iv.import_wh.unwrap_or(0.0).max(0.0) / 1000.0;
        bill.imported_kwh += import;
        let (self_kwh, export_kwh) = match terms.connection {
            GridConnection::FullFeedIn => (0.0, generation),
            GridConnection::FullSelfUse => (generation, 0.0),
            GridConnection::SelfUseSurplus => {
                let export = iv.export_wh.unwrap_or(0.0).max(0.0) / 1000.0;
                if export > generation + 1e-9 {
                    bill.export_capped_intervals += 1;
                }
                let export = export.min(generation);
                (generation - export, export)
            }
        };
        if generation <= 0.0 {
            continue;
        }
        bill.generation_kwh += generation;
        bill.self_consumed_kwh += self_kwh;
        bill.exported_kwh += export_kwh;
        for (day, from, to, share) in day_parts(iv.start, iv.len, terms.offset_ms) {
            let feed_in = price_on(&terms.feed_in, day);
            let version = version_on(&terms.tariff, day);
            let span = (to - from).max(1) as f64;
            // The segments of the day's version, or one unnamed stretch when none is in force.
            let parts: Vec<(String, f64, Option<f64>)> = match version {
                Some(v) => v
                    .segments
                    .iter()
                    .filter_map(|s| {
                        let m = s.overlap(from, to);
                        (m > 0).then(|| (s.kind.clone(), m as f64 / span, Some(s.price)))
                    })
                    .collect(),
                None => vec![(String::new(), 1.0, None)],
            };
            for (kind, part, price) in parts {
                let k = share * part;
                let (g, sc, ex) = (generation * k, self_kwh * k, export_kwh * k);
                let sc_amount = match price {
                    Some(p) => sc * p * terms.discount_factor,
                    None => {
                        if sc > 0.0 {
                            unpriced.insert(day);
                            bill.unpriced_kwh += sc;
                        }
                        0.0
                    }
                };
                let ex_amount = match feed_in {
                    Some(p) => ex * p,
                    None => {
                        if ex > 0.0 {
                            no_feed_in.insert(day);
                            bill.unpriced_kwh += ex;
                        }
                        0.0
                    }
                };
                bill.self_consumed_amount += sc_amount;
                bill.exported_amount += ex_amount;
                if kind.is_empty() {
                    continue;
                }
                let line = bill.segments.entry(kind.clone()).or_insert_with(|| SegmentLine {
                    kind: kind.clone(),
                    ..SegmentLine::default()
                });
                line.generation_kwh += g;
                line.self_consumed_kwh += sc;
                line.exported_kwh += ex;
                line.self_consumed_amount += sc_amount;
                line.exported_amount += ex_amount;
                if let Some(p) = price {
                    line.min_price = Some(line.min_price.map_or(p, |m| m.min(p)));
                    line.max_price = Some(line.max_price.map_or(p, |m| m.max(p)));
                }
            }
        }
    }
    bill.unpriced_days = unpriced.into_iter().collect();
    bill.no_feed_in_days = no_feed_in.into_iter().collect();
    bill
}

/// Gives `bill` a line for every segment of the tariff versions in force on `days` that it has
/// none for, at 0 kWh and 0 (the price in force named): a priced slot without energy answers
/// 0 per segment, not "no figure". Days without a version add nothing (they stay unpriced).
pub fn zero_priced_segments(bill: &mut Bill, terms: &Terms, days: impl IntoIterator<Item = NaiveDate>) {
    let mut added: BTreeMap<String, SegmentLine> = BTreeMap::new();
    for day in days {
        let Some(v) = version_on(&terms.tariff, day) else {
            continue;
        };
        for s in &v.segments {
            if bill.segments.contains_key(&s.kind) {
                continue;
            }
            let line = added.entry(s.kind.clone()).or_insert_with(|| SegmentLine {
                kind: s.kind.clone(),
                ..SegmentLine::default()
            });
            line.min_price = Some(line.min_price.map_or(s.price, |m| m.min(s.price)));
            line.max_price = Some(line.max_price.map_or(s.price, |m| m.max(s.price)));
        }
    }
    bill.segments.extend(added);
}

/// The local days of the station clock that `[start, end)` touches.
pub fn days_of(start: i64, end: i64, offset_ms: i64) -> Vec<NaiveDate> {
    let first = (start + offset_ms).div_euclid(DAY_MS);
    let last = (end - 1 + offset_ms).div_euclid(DAY_MS);
    (first..=last.max(first))
        .map(|d| NaiveDate::default() + chrono::Duration::days(d))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000;
    const CST: i64 = 8 * H;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn seg(a: i64, b: i64, kind: &str, price: f64) -> TouSegment {
        TouSegment {
            start: a * 60,
            end: b * 60,
            kind: kind.into(),
            price,
        }
    }

    /// Local `d` at `hour` (+08:00) as UTC ms.
    fn at(d: &str, hour: i64) -> i64 {
        (day(d) - NaiveDate::default()).num_days() * DAY_MS - CST + hour * H
    }

    fn hour(d: &str, h: i64, gen_wh: f64, export_wh: f64) -> Interval {
        Interval {
            start: at(d, h),
            len: H,
            generation_wh: Some(gen_wh),
            export_wh: Some(export_wh),
            import_wh: None,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// Two versions: until 2026-03-31 valley 22:00-06:00 (wrapping) 0.30, flat 06:00-14:00 0.60,
    /// peak 14:00-22:00 1.00; from 2026-04-01 the valley costs 0.20 and the peak 1.20.
    fn terms(connection: GridConnection) -> Terms {
        Terms {
            connection,
            offset_ms: CST,
            tariff: vec![
                TariffVersion {
                    effective: day("2026-01-01"),
                    segments: vec![
                        seg(22, 6, "4", 0.30),
                        seg(6, 14, "3", 0.60),
                        seg(14, 22, "2", 1.00),
                    ],
                },
                TariffVersion {
                    effective: day("2026-04-01"),
                    segments: vec![
                        seg(22, 6, "4", 0.20),
                        seg(6, 14, "3", 0.60),
                        seg(14, 22, "2", 1.20),
                    ],
                },
            ],
            feed_in: vec![DatedPrice {
                effective: day("2020-01-01"),
                price: 0.39,
            }],
            discount_factor: 0.9,
        }
    }

    #[test]
    fn a_bill_across_a_tariff_change_with_a_segment_over_midnight() {
        // 2026-03-31 23:00-24:00: 10 kWh, 2 exported (old valley 0.30);
        // 2026-04-01 00:00-01:00: 10 kWh, 0 exported (new valley 0.20);
        // 2026-03-31 15:00: 100 kWh, 40 exported (old peak 1.00);
        // 2026-04-01 15:00: 100 kWh, 40 exported (new peak 1.20);
        // 2026-04-01 13:30-14:30 straddles flat/peak: 50 kWh, none exported, half in each.
        let intervals = vec![
            hour("2026-03-31", 23, 10_000.0, 2_000.0),
            hour("2026-04-01", 0, 10_000.0, 0.0),
            hour("2026-03-31", 15, 100_000.0, 40_000.0),
            hour("2026-04-01", 15, 100_000.0, 40_000.0),
            Interval {
                start: at("2026-04-01", 13) + H / 2,
                len: H,
                generation_wh: Some(50_000.0),
                export_wh: Some(0.0),
                import_wh: Some(3_000.0),
            },
        ];
        let b = settle(&intervals, &terms(GridConnection::SelfUseSurplus));
        assert!(close(b.generation_kwh, 270.0));
        assert!(close(b.exported_kwh, 82.0));
        assert!(close(b.self_consumed_kwh, 188.0));
        assert!(close(b.imported_kwh, 3.0));
        let valley = &b.segments["4"];
        assert!(close(valley.generation_kwh, 20.0));
        assert!(close(valley.self_consumed_kwh, 18.0));
        // 8 kWh × 0.30 × 0.9 + 10 kWh × 0.20 × 0.9
        assert!(close(
            valley.self_consumed_amount,
            8.0 * 0.30 * 0.9 + 10.0 * 0.20 * 0.9
        ));
        assert_eq!(valley.min_price, Some(0.20));
        assert_eq!(valley.max_price, Some(0.30));
        let peak = &b.segments["2"];
        assert!(close(peak.generation_kwh, 225.0));
        // 60 × 1.00 × 0.9 + 60 × 1.20 × 0.9 + 25 × 1.20 × 0.9
        assert!(close(peak.self_consumed_amount, 0.9 * (60.0 + 72.0 + 30.0)));
        let flat = &b.segments["3"];
        assert!(close(flat.generation_kwh, 25.0));
        assert!(close(flat.self_consumed_amount, 25.0 * 0.60 * 0.9));
        assert!(close(b.exported_amount, 82.0 * 0.39));
        assert!(close(b.amount(), 0.9 * (2.4 + 2.0 + 162.0 + 15.0) + 82.0 * 0.39));
        assert!(b.unpriced_days.is_empty());
    }

    #[test]
    fn an_empty_priced_slot_answers_zero_per_segment_and_an_unpriced_one_nothing() {
        let t = terms(GridConnection::SelfUseSurplus);
        // A day with a version in force and no energy: every segment at 0, its price named.
        let mut b = settle(&[], &t);
        zero_priced_segments(&mut b, &t, days_of(at("2026-04-02", 0), at("2026-04-03", 0), CST));
        assert_eq!(b.segments.len(), 3);
        let peak = &b.segments["2"];
        assert!(close(peak.generation_kwh, 0.0) && close(peak.self_consumed_amount, 0.0));
        assert_eq!((peak.min_price, peak.max_price), (Some(1.20), Some(1.20)));
        // A day before the first version: no segment (no price, no figure).
        let mut b = settle(&[], &t);
        zero_priced_segments(&mut b, &t, days_of(at("2025-12-31", 0), at("2026-01-01", 0), CST));
        assert!(b.segments.is_empty());
        // A slot with energy in one segment keeps that line as settled and gains the others at 0.
        let mut b = settle(&[hour("2026-04-02", 15, 10_000.0, 0.0)], &t);
        zero_priced_segments(
            &mut b,
            &t,
            days_of(at("2026-04-02", 15), at("2026-04-02", 16), CST),
        );
        assert!(close(b.segments["2"].generation_kwh, 10.0));
        assert!(close(b.segments["4"].generation_kwh, 0.0));
        assert_eq!(b.segments.len(), 3);
    }

    #[test]
    fn full_feed_in_sells_all_generation_at_the_feed_in_price() {
        let intervals = vec![
            hour("2026-04-01", 10, 100_000.0, 30_000.0),
            hour("2026-04-01", 15, 50_000.0, 10_000.0),
        ];
        let b = settle(&intervals, &terms(GridConnection::FullFeedIn));
        assert!(close(b.self_consumed_kwh, 0.0));
        assert!(close(b.exported_kwh, 150.0));
        assert!(close(b.amount(), 150.0 * 0.39));
        // The energy still splits by the hours it was made in.
        assert!(close(b.segments["3"].generation_kwh, 100.0));
        assert!(close(b.segments["2"].exported_kwh, 50.0));
        let self_use = settle(&intervals, &terms(GridConnection::SelfUseSurplus));
        assert!(close(self_use.self_consumed_kwh, 110.0));
        assert!(close(
            self_use.amount(),
            70.0 * 0.60 * 0.9 + 40.0 * 1.20 * 0.9 + 40.0 * 0.39
        ));
        let all_self = settle(&intervals, &terms(GridConnection::FullSelfUse));
        assert!(close(all_self.exported_kwh, 0.0));
        assert!(close(all_self.amount(), 100.0 * 0.60 * 0.9 + 50.0 * 1.20 * 0.9));
    }

    #[test]
    fn days_without_a_price_are_named_not_counted_as_zero() {
        let intervals = vec![
            hour("2025-12-31", 12, 10_000.0, 4_000.0),
            hour("2026-01-01", 12, 10_000.0, 4_000.0),
        ];
        let mut t = terms(GridConnection::SelfUseSurplus);
        t.feed_in = vec![DatedPrice {
            effective: day("2026-01-01"),
            price: 0.39,
        }];
        let b = settle(&intervals, &t);
        assert_eq!(b.unpriced_days, vec![day("2025-12-31")]);
        assert_eq!(b.no_feed_in_days, vec![day("2025-12-31")]);
        assert!(close(b.unpriced_kwh, 10.0));
        assert!(close(b.amount(), 6.0 * 0.60 * 0.9 + 4.0 * 0.39));
    }

    #[test]
    fn export_above_generation_is_capped_and_counted() {
        let b = settle(
            &[hour("2026-04-01", 12, 1_000.0, 1_500.0)],
            &terms(GridConnection::SelfUseSurplus),
        );
        assert!(close(b.exported_kwh, 1.0));
        assert!(close(b.self_consumed_kwh, 0.0));
        assert_eq!(b.export_capped_intervals, 1);
    }

    #[test]
    fn wrapping_segments_cover_both_ends_of_the_day() {
        let s = seg(22, 6, "4", 0.3);
        assert_eq!(s.overlap(0, 60), 60);
        assert_eq!(s.overlap(21 * 60, 23 * 60), 60);
        assert_eq!(s.overlap(6 * 60, 22 * 60), 0);
        assert_eq!(
            GridConnection::from_key(Some("2")),
            GridConnection::SelfUseSurplus
        );
        assert_eq!(GridConnection::from_key(None), GridConnection::FullFeedIn);
    }
}
