//! Gateway outages, free of I/O: when a gateway's offline and online reports become a
//! `comm:gateway` alarm, and when it clears. The same debounce as a device's silence:
//!
//! - raised once the gateway has been offline without a break for the tenant's
//!   `deviceSilenceSeconds` (measured from its last message, so a gateway found silent by the
//!   presence sweep is not given the silence twice); a connection that drops and comes back
//!   sooner raises nothing;
//! - once raised, the alarm clears after the gateway has stayed back for `clearHoldSeconds`; a
//!   drop before that is the same outage (the open alarm is re-triggered, no second alarm and no
//!   second message), so a flapping gateway is one alarm, not one per reconnect.
//!
//! Keyed by station: a station has one gateway.

use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Outage {
    tenant_id: String,
    gateway_id: String,
    /// Since when the gateway has been offline (its last message); `None` while it is back.
    offline_since: Option<i64>,
    /// Since when it has been back, while the raised alarm waits for the clear hold.
    back_since: Option<i64>,
    raised: bool,
}

/// What the engine must store after [`Outages::due`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Due {
    /// Open the station's `comm:gateway` alarm, the outage having begun at `since`.
    Raise {
        station_id: i64,
        tenant_id: String,
        gateway_id: String,
        since: i64,
    },
    /// Clear it: the gateway has been back for the clear hold.
    Clear { station_id: i64, tenant_id: String },
}

/// The outages of every station whose gateway is offline, or back but not yet for the hold.
#[derive(Debug, Default)]
pub struct Outages {
    by_station: HashMap<i64, Outage>,
}

impl Outages {
    /// An open `comm:gateway` alarm found at start: raised, offline since before the start.
    pub fn loaded(&mut self, tenant_id: &str, station_id: i64, gateway_id: &str) {
        self.by_station.insert(
            station_id,
            Outage {
                tenant_id: tenant_id.to_owned(),
                gateway_id: gateway_id.to_owned(),
                offline_since: Some(0),
                back_since: None,
                raised: true,
            },
        );
    }

    /// The gateway went offline, its last message at `since`. True when this is a drop of an
    /// outage already raised (the open alarm is re-triggered rather than a new one raised).
    pub fn offline(&mut self, tenant_id: &str, station_id: i64, gateway_id: &str, since: i64) -> bool {
        let o = self.by_station.entry(station_id).or_insert_with(|| Outage {
            tenant_id: tenant_id.to_owned(),
            gateway_id: gateway_id.to_owned(),
            offline_since: None,
            back_since: None,
            raised: false,
        });
        if o.offline_since.is_some() {
            // Already offline (a will after the sweep, a second report): nothing new.
            return false;
        }
        o.offline_since = Some(since);
        o.back_since = None;
        o.gateway_id = gateway_id.to_owned();
        o.raised
    }

    /// The gateway is back at `now`. True when it was offline (its devices' silence is then
    /// measured from now).
    pub fn online(&mut self, station_id: i64, now: i64) -> bool {
        let Some(o) = self.by_station.get_mut(&station_id) else {
            return false;
        };
        if o.offline_since.is_none() {
            return false;
        }
        if o.raised {
            o.offline_since = None;
            o.back_since = Some(now);
        } else {
            // Back before the silence ran out: no outage.
            self.by_station.remove(&station_id);
        }
        true
    }

    /// Whether the station's gateway is offline or its outage not yet over: its devices' own
    /// silence is then the gateway's alarm.
    pub fn covers(&self, station_id: i64) -> bool {
        self.by_station.contains_key(&station_id)
    }

    /// Whether the station's gateway is offline right now.
    pub fn offline_now(&self, station_id: i64) -> bool {
        self.by_station
            .get(&station_id)
            .is_some_and(|o| o.offline_since.is_some())
    }

    /// Tenants with an outage (whose settings [`Outages::due`] needs).
    pub fn tenants(&self) -> Vec<String> {
        let mut t: Vec<String> = self.by_station.values().map(|o| o.tenant_id.clone()).collect();
        t.sort();
        t.dedup();
        t
    }

    /// What is due at `now`, with each tenant's (silence, clear hold) in ms. Nothing changes
    /// until the engine reports the store with [`Outages::raised`] / [`Outages::cleared`], so a
    /// write that failed is due again at the next check.
    pub fn due(&self, now: i64, holds: impl Fn(&str) -> (i64, i64)) -> Vec<Due> {
        let mut out = Vec::new();
        for (station_id, o) in &self.by_station {
            let (silence_ms, clear_hold_ms) = holds(&o.tenant_id);
            match (o.raised, o.offline_since, o.back_since) {
                (false, Some(since), _) if now - since >= silence_ms => out.push(Due::Raise {
                    station_id: *station_id,
                    tenant_id: o.tenant_id.clone(),
                    gateway_id: o.gateway_id.clone(),
                    since,
                }),
                (true, None, Some(back)) if now - back >= clear_hold_ms => out.push(Due::Clear {
                    station_id: *station_id,
                    tenant_id: o.tenant_id.clone(),
                }),
                _ => {}
            }
        }
        out.sort_by_key(|d| match d {
            Due::Raise { station_id, .. } | Due::Clear { station_id, .. } => *station_id,
        });
        out
    }

    /// The raise of the station's outage was stored.
    pub fn raised(&mut self, station_id: i64) {
        if let Some(o) = self.by_station.get_mut(&station_id) {
            o.raised = true;
        }
    }

    /// The clear was stored: the outage is over.
    pub fn cleared(&mut self, station_id: i64) {
        if self
            .by_station
            .get(&station_id)
            .is_some_and(|o| o.back_since.is_some())
        {
            self.by_station.remove(&station_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 7;
    const SILENCE: i64 = 10_000;
    const HOLD: i64 = 5_000;

    fn due(o: &Outages, now: i64) -> Vec<Due> {
        o.due(now, |_| (SILENCE, HOLD))
    }

    /// Applies what is due as a store that always succeeds; returns (raises, clears).
    fn settle(o: &mut Outages, now: i64) -> (usize, usize) {
        let (mut r, mut c) = (0, 0);
        for d in due(o, now) {
            match d {
                Due::Raise { station_id, .. } => {
                    o.raised(station_id);
                    r += 1;
                }
                Due::Clear { station_id, .. } => {
                    o.cleared(station_id);
                    c += 1;
                }
            }
        }
        (r, c)
    }

    #[test]
    fn a_connection_flapping_faster_than_the_silence_raises_nothing() {
        let mut o = Outages::default();
        let (mut raises, mut clears) = (0, 0);
        // 15 drops in 35 s, each back within 2 s.
        for i in 0..15 {
            let t = i * 2_300;
            o.offline("t", S, "GW", t);
            let (r, c) = settle(&mut o, t + 1_000);
            assert!(o.online(S, t + 1_500));
            let (r2, c2) = settle(&mut o, t + 2_000);
            raises += r + r2;
            clears += c + c2;
        }
        assert_eq!((raises, clears), (0, 0));
        assert!(!o.covers(S));
    }

    #[test]
    fn an_outage_is_raised_after_the_silence_once_and_cleared_after_the_hold() {
        let mut o = Outages::default();
        assert!(!o.offline("t", S, "GW", 1_000));
        assert!(due(&o, 10_999).is_empty(), "not yet silent long enough");
        assert_eq!(
            due(&o, 11_000),
            [Due::Raise {
                station_id: S,
                tenant_id: "t".into(),
                gateway_id: "GW".into(),
                since: 1_000
            }]
        );
        // A failed store leaves it due.
        assert_eq!(due(&o, 11_500).len(), 1);
        assert_eq!(settle(&mut o, 11_500), (1, 0));
        assert!(due(&o, 60_000).is_empty(), "raised once");
        // A second offline report of the same drop changes nothing.
        assert!(!o.offline("t", S, "GW", 20_000));
        // Back, drops again within the hold: the same outage, re-triggered.
        assert!(o.online(S, 30_000));
        assert!(o.covers(S) && !o.offline_now(S));
        assert!(due(&o, 34_999).is_empty());
        assert!(o.offline("t", S, "GW", 34_000), "re-trigger, not a new alarm");
        assert!(due(&o, 50_000).is_empty(), "no second raise");
        // Back for the hold: cleared, and the outage is over.
        assert!(o.online(S, 60_000));
        assert_eq!(settle(&mut o, 64_999), (0, 0));
        assert_eq!(settle(&mut o, 65_000), (0, 1));
        assert!(!o.covers(S));
        // The next drop is a new outage.
        assert!(!o.offline("t", S, "GW", 70_000));
        assert_eq!(settle(&mut o, 80_000), (1, 0));
    }

    #[test]
    fn an_alarm_open_at_start_clears_once_the_gateway_is_back_for_the_hold() {
        let mut o = Outages::default();
        o.loaded("t", S, "GW");
        assert!(o.offline_now(S));
        assert!(due(&o, 1_000_000).is_empty());
        assert!(o.online(S, 1_000_000));
        assert_eq!(settle(&mut o, 1_005_000), (0, 1));
        assert_eq!(o.tenants(), Vec::<String>::new());
    }
}
