//! No register mapped twice.
//!
//! Checked once all points are expanded, since repeats and scale factors only then have their
//! final registers.

use std::collections::{BTreeMap, BTreeSet};

use super::error::{Lines, MapError};
use super::schema::{Function, Location, Point};
use super::settings::exclusive;

/// Registers `start..end` of a point (or scale factor), the line that mapped it and the
/// settings under which it exists.
type Extent<'a> = (u32, u32, String, usize, &'a [(String, String)]);

/// Refuses maps whose points (or scale-factor registers) share registers: such a map decodes
/// one register as two things, which is always a transcription mistake.
pub(super) fn check_overlaps(lines: &Lines, points: &[Point]) -> Result<(), MapError> {
    // Function codes 3 and 4 are separate register spaces, and so is each SunSpec model
    // (its base is found on the device).
    let mut spaces: BTreeMap<(Function, Option<u16>), Vec<Extent>> = BTreeMap::new();
    let key = |l: &Location| match l {
        Location::Absolute(a) => (None, u32::from(*a)),
        Location::SunSpec { model, offset } => (Some(*model), u32::from(*offset)),
    };
    // Points may share a scale factor: count each one once.
    let mut sfs = BTreeSet::new();
    for p in points {
        let (model, start) = key(&p.location);
        spaces.entry((p.function, model)).or_default().push((
            start,
            start + u32::from(p.words),
            p.metric.clone(),
            p.line,
            &p.when,
        ));
        if let Some(sf) = p.scale_factor {
            sfs.insert((p.function, sf));
        }
    }
    for (function, sf) in sfs {
        let (model, start) = key(&sf);
        spaces
            .entry((function, model))
            .or_default()
            .push((start, start + 1, "scale factor".into(), 0, &[]));
    }
    for v in spaces.values_mut() {
        v.sort_by(|a, b| (a.0, a.1, &a.2).cmp(&(b.0, b.1, &b.2)));
        // Points of different variants may share registers, so a point is compared with every
        // later one that starts inside it, not only its neighbour.
        for (i, a) in v.iter().enumerate() {
            for b in v[i + 1..].iter().take_while(|b| b.0 < a.1) {
                if exclusive(a.4, b.4) {
                    continue;
                }
                return Err(lines.err_at_line(
                    a.3.max(b.3),
                    "address",
                    format!(
                        "{} (registers {}..{}) overlaps {} (registers {}..{})",
                        b.2,
                        b.0,
                        b.1 - 1,
                        a.2,
                        a.0,
                        a.1 - 1
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{GOOD, parse, refused};

    #[test]
    fn overlap_mistakes_are_refused_with_file_line_and_field() {
        refused(
            "address = 110",
            "address = 101",
            20,
            "address",
            "pv1_voltage (registers 101..101) overlaps ac_power",
        );
    }

    #[test]
    fn overlapping_registers_are_refused_naming_both_points() {
        // Function codes 3 and 4 are different register spaces: no overlap there.
        parse(&GOOD.replacen("address = 130", "address = 101", 1)).unwrap();
        let text = GOOD
            .replacen("address = 130", "address = 101", 1)
            .replacen("function = 3\n", "", 1);
        let err = parse(&text).unwrap_err();
        assert!(
            err.message.contains("status_code") && err.message.contains("ac_power"),
            "{err}"
        );
        assert_eq!(err.line, 29, "{err}");
    }
}
