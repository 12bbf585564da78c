//! Multi-register counters published whole, never torn.
//!
//! A 32- or 64-bit counter (energy, reactive energy, irradiation, running time) spans two or
//! four registers. Many devices update those registers one at a time and serve reads in
//! between, so a read can return the new low word beside the old high word (or the reverse):
//! at a 65 536 boundary that is a value off by 65 536 raw units, which the cloud would book as
//! a reset or a jump. The rule (docs/data-quality.md, "Counters read whole"):
//!
//! - a counter's reading is taken as it is when its upper registers (all but the least
//!   significant one) equal those of the last value published for it and it did not decrease:
//!   a tear cannot show then (the registers that could disagree hold the same word);
//! - otherwise (first reading since the agent started, upper registers changed, or a decrease)
//!   the counter's registers alone are read again at once (one short request); the re-read value
//!   is published when its upper registers equal those of the read before it and it is not
//!   lower than that read (a counter does not fall within milliseconds; a re-read torn the other
//!   way, old upper words beside a low word that wrapped, would). Otherwise one more short read
//!   settles it the same way; failing that the counter is left out of this reading (the next
//!   poll tries again) and counted.
//!
//! Bus load: the extra request happens once per crossing of a 65 536 boundary of the counter's
//! raw value (for a 0.01 kWh counter, every 655 kWh) and once per counter after start or after
//! the device was unreachable. The rule assumes a counter advances by less than 65 536 raw units
//! between two successful polls, which holds for any PV device polled every few minutes.

use std::collections::HashMap;

use pv_shared::metrics::{self, Dimension};
use pv_shared::regmap::{DataType, Limits, Order, Point};

/// Whether `point` is a cumulative counter spread over several registers (the points the rule
/// applies to).
pub fn is_multiword_counter(point: &Point) -> bool {
    point.words > 1
        && point.data_type != DataType::String
        && metrics::lookup(&point.metric).is_some_and(|m| {
            matches!(
                m.def.dimension,
                Dimension::Energy | Dimension::ReactiveEnergy | Dimension::Irradiation | Dimension::Duration
            )
        })
}

/// The registers of a value but its least significant one, in register order.
pub fn upper(words: &[u16], limits: &Limits) -> Vec<u16> {
    match (limits.word_order, words.len()) {
        (_, 0) => Vec::new(),
        (Order::Big, n) => words[..n - 1].to_vec(),
        (Order::Little, _) => words[1..].to_vec(),
    }
}

/// The last published value of each counter of one device.
#[derive(Debug, Default, Clone)]
pub struct Published {
    last: HashMap<String, (Vec<u16>, f64)>,
}

impl Published {
    /// Whether a reading of `metric` (upper registers `upper`, value `value`) needs a re-read
    /// before it may be published.
    pub fn needs_reread(&self, metric: &str, upper: &[u16], value: f64) -> bool {
        match self.last.get(metric) {
            Some((u, v)) => u.as_slice() != upper || value < *v,
            None => true,
        }
    }

    /// Remembers what was published.
    pub fn publish(&mut self, metric: &str, upper: Vec<u16>, value: f64) {
        self.last.insert(metric.to_string(), (upper, value));
    }
}

/// The outcome of confirming a counter from successive reads of its registers.
#[derive(Debug, Clone, PartialEq)]
pub enum Confirmation {
    /// Publish this value (upper registers, value).
    Confirmed(Vec<u16>, f64),
    /// No two successive reads agreed: leave the counter out of this reading.
    Unconfirmed,
}

/// Folds successive reads (upper registers, value) of one counter, first the block read, then
/// re-reads: the first re-read whose upper registers equal the read before it, and that is not
/// lower than it, wins.
pub fn confirm(reads: &[(Vec<u16>, f64)]) -> Confirmation {
    reads
        .windows(2)
        .find(|w| w[0].0 == w[1].0 && w[1].1 >= w[0].1)
        .map(|w| Confirmation::Confirmed(w[1].0.clone(), w[1].1))
        .unwrap_or(Confirmation::Unconfirmed)
}

/// Re-reads allowed after the block read (so at most this many extra short requests).
pub const MAX_REREADS: usize = 2;

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(order: Order) -> Limits {
        Limits {
            max_block: 125,
            function: pv_shared::regmap::Function::Holding,
            word_order: order,
            byte_order: Order::Big,
            max_gap: 0,
            sentinels: pv_shared::regmap::Sentinels::None,
        }
    }

    #[test]
    fn the_upper_registers_follow_the_word_order() {
        assert_eq!(upper(&[1, 2], &limits(Order::Big)), vec![1]);
        assert_eq!(upper(&[1, 2], &limits(Order::Little)), vec![2]);
        assert_eq!(upper(&[1, 2, 3, 4], &limits(Order::Big)), vec![1, 2, 3]);
    }

    #[test]
    fn only_a_changed_upper_word_or_a_decrease_costs_a_reread() {
        let mut p = Published::default();
        assert!(
            p.needs_reread("energy_total", &[1], 65_600.0),
            "nothing published yet"
        );
        p.publish("energy_total", vec![1], 65_600.0);
        assert!(
            !p.needs_reread("energy_total", &[1], 65_700.0),
            "low word moved only"
        );
        assert!(
            p.needs_reread("energy_total", &[2], 131_100.0),
            "crossed a boundary"
        );
        // Old high word beside a low word that already wrapped: a dip.
        assert!(p.needs_reread("energy_total", &[1], 65_540.0));
    }

    #[test]
    fn a_value_is_published_only_when_two_successive_reads_agree() {
        // 0x0001_FFF0 → 0x0002_0010 → 0x0002_0020.
        let before = (vec![1], f64::from(0x0001_FFF0u32));
        let whole = (vec![2], f64::from(0x0002_0010u32));
        let later = (vec![2], f64::from(0x0002_0020u32));
        // Torn as new high, old low: same upper word as the whole re-read, but higher than it.
        let spike = (vec![2], f64::from(0x0002_FFF0u32));
        assert_eq!(
            confirm(&[spike.clone(), whole.clone()]),
            Confirmation::Unconfirmed
        );
        assert_eq!(
            confirm(&[spike, whole.clone(), later.clone()]),
            Confirmation::Confirmed(vec![2], later.1),
            "the second re-read's value, not the torn one"
        );
        // Torn as old high, new low: its upper word differs from the whole value's.
        let dip = (vec![1], f64::from(0x0001_0010u32));
        assert_eq!(
            confirm(&[dip.clone(), whole.clone(), later.clone()]),
            Confirmation::Confirmed(vec![2], later.1)
        );
        assert_eq!(confirm(&[dip.clone(), whole.clone()]), Confirmation::Unconfirmed);
        // A whole read, then a re-read torn old-high/new-low: same upper word, but lower.
        assert_eq!(confirm(&[before.clone(), dip.clone()]), Confirmation::Unconfirmed);
        assert_eq!(
            confirm(&[whole.clone(), whole.clone()]),
            Confirmation::Confirmed(vec![2], whole.1)
        );
        assert_eq!(confirm(&[dip]), Confirmation::Unconfirmed);
    }
}
