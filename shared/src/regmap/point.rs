//! One `[[point]]` entry into one or more checked points.
//!
//! Each step below refuses what would make the decoder produce a plausible but wrong number:
//! a unit of another dimension, a scale of zero, a SunSpec offset outside its model, two points
//! on one register. Such mistakes would otherwise surface months later as odd yields on a chart.

use std::ops::Range;

use toml::Spanned;

use super::error::{Lines, MapError};
use super::parse::parse_function;
use super::raw::RawPoint;
use super::schema::{DataType, Function, Limits, Location, Point, Setting, SunSpecModel};
use super::settings::{exclusive, parse_when};
use crate::metrics::{self, Dimension, Unit};

/// The `i`-th `[[point]]` entry while it is checked; errors name it `point[i].<key>`.
struct Entry<'a> {
    lines: &'a Lines<'a>,
    i: usize,
    raw: &'a Spanned<RawPoint>,
}

impl Entry<'_> {
    fn get(&self) -> &RawPoint {
        self.raw.get_ref()
    }

    /// The whole entry, for mistakes that are not in one key.
    fn span(&self) -> Range<usize> {
        self.raw.span()
    }

    fn field(&self, key: &str) -> String {
        format!("point[{}].{key}", self.i)
    }

    fn err<T>(&self, span: Range<usize>, key: &str, message: impl Into<String>) -> Result<T, MapError> {
        self.lines.err(span, self.field(key), message)
    }

    fn int_in<T: TryFrom<i64>>(&self, v: &Spanned<i64>, key: &str, what: &str) -> Result<T, MapError> {
        self.lines.int_in(v, &self.field(key), what)
    }
}

/// Checks the `i`-th entry and appends its points (several when it repeats). The order of the
/// checks decides which mistake is reported when an entry has several: keep it.
pub(super) fn parse_point(
    lines: &Lines,
    i: usize,
    raw: &Spanned<RawPoint>,
    limits: &Limits,
    sunspec: &[SunSpecModel],
    settings: &[Setting],
    out: &mut Vec<Point>,
) -> Result<(), MapError> {
    let e = &Entry { lines, i, raw };
    let data_type = data_type(e)?;
    let words = words(e, data_type, limits)?;
    let unit = unit(e, data_type)?;
    let scale = scale(e)?;
    let function = match &e.get().function {
        Some(v) => parse_function(e.lines, v, &e.field("function"))?,
        None => limits.function,
    };
    let (base, model) = place(e, sunspec)?;
    let scale_factor = scale_factor(e, data_type, model)?;
    let mut shape = Point {
        // Metric and location are set for each repeat in `expand`.
        metric: String::new(),
        location: Location::Absolute(base),
        unit,
        function,
        data_type,
        words,
        scale,
        scale_factor,
        writable: false,
        when: parse_when(lines, &e.field("when"), raw.get_ref().when.as_ref(), settings)?,
        line: e.lines.line(e.span().start),
    };
    shape.writable = writable(e, &shape, model.is_some())?;
    let repeat = repeat(e, words)?;
    expand(e, &shape, base, model, &repeat, out)
}

fn data_type(e: &Entry) -> Result<DataType, MapError> {
    let t = &e.get().data_type;
    match DataType::parse(t.get_ref()) {
        Some(t) => Ok(t),
        None => e.err(
            t.span(),
            "type",
            format!(
                "unknown type {:?} (u16, i16, u32, i32, u64, f32, acc32, acc64, string)",
                t.get_ref()
            ),
        ),
    }
}

/// Registers the value takes: fixed by its type, or given for strings. A value longer than one
/// read could never be fetched whole, so it is refused here rather than at the first poll.
fn words(e: &Entry, data_type: DataType, limits: &Limits) -> Result<u16, MapError> {
    let r = e.get();
    let words = match (data_type.fixed_words(), &r.words) {
        (Some(n), None) => n,
        (Some(_), Some(w)) => return e.err(w.span(), "words", "only strings take a length"),
        (None, Some(w)) => match u16::try_from(*w.get_ref()) {
            Ok(n @ 1..=125) => n,
            _ => return e.err(w.span(), "words", "must be 1-125"),
        },
        (None, None) => return e.err(r.data_type.span(), "words", "a string needs `words`"),
    };
    if words > limits.max_block {
        return e.err(
            e.span(),
            "words",
            "longer than limits.max_block: it could never be read",
        );
    }
    Ok(words)
}

/// The unit after scaling. Whether it fits the metric is checked per repeat in `check_metric`,
/// once the metric's name is known.
fn unit(e: &Entry, data_type: DataType) -> Result<Unit, MapError> {
    let u = &e.get().unit;
    let Some(unit) = Unit::parse(u.get_ref()) else {
        let known: Vec<_> = metrics::UNITS.iter().map(|u| u.symbol).collect();
        return e.err(
            u.span(),
            "unit",
            format!("unknown unit {:?} (one of {})", u.get_ref(), known.join(", ")),
        );
    };
    if (data_type == DataType::String) != (unit.dimension == Dimension::Text) {
        return e.err(u.span(), "unit", "text metrics and string registers go together");
    }
    Ok(unit)
}

/// A zero or infinite scale would turn every reading into the same number.
fn scale(e: &Entry) -> Result<f64, MapError> {
    match &e.get().scale {
        Some(s) if !s.get_ref().is_finite() || *s.get_ref() == 0.0 => {
            e.err(s.span(), "scale", "must be a finite, non-zero number")
        }
        Some(s) => Ok(*s.get_ref()),
        None => Ok(1.0),
    }
}

/// Where the point is: an absolute address, or an offset in a SunSpec model (whose base address
/// is only found on the device). A map is one or the other, never a mix.
fn place<'s>(e: &Entry, sunspec: &'s [SunSpecModel]) -> Result<(u16, Option<&'s SunSpecModel>), MapError> {
    let r = e.get();
    match (&r.address, &r.model, &r.offset) {
        (Some(a), None, None) => {
            if !sunspec.is_empty() {
                return e.err(a.span(), "address", "points of a SunSpec map use model + offset");
            }
            Ok((e.int_in::<u16>(a, "address", "0-65535")?, None))
        }
        (None, Some(m), Some(o)) => {
            let model: u16 = e.int_in(m, "model", "0-65535")?;
            let Some(def) = sunspec.iter().find(|x| x.id == model) else {
                return e.err(
                    m.span(),
                    "model",
                    format!("model {model} is not listed in [sunspec] models"),
                );
            };
            let offset: u16 = e.int_in(o, "offset", "0-65535")?;
            if offset < 2 {
                return e.err(
                    o.span(),
                    "offset",
                    "offsets 0 and 1 are the model's ID and length",
                );
            }
            Ok((offset, Some(def)))
        }
        _ => e.err(
            e.span(),
            "address",
            "give either `address`, or `model` and `offset`",
        ),
    }
}

/// The SunSpec scale-factor register (a power of ten read beside the value), which only makes
/// sense for integers and, in a SunSpec map, must lie in the point's own model.
fn scale_factor(
    e: &Entry,
    data_type: DataType,
    model: Option<&SunSpecModel>,
) -> Result<Option<Location>, MapError> {
    let Some(s) = &e.get().sf else { return Ok(None) };
    if !matches!(
        data_type,
        DataType::U16
            | DataType::I16
            | DataType::U32
            | DataType::I32
            | DataType::Acc32
            | DataType::Acc64
            | DataType::U64
    ) {
        return e.err(s.span(), "sf", "scale factors apply to integer points");
    }
    let at: u16 = e.int_in(s, "sf", "0-65535")?;
    Ok(Some(match model {
        Some(m) => {
            if at < 2 || u32::from(at) >= u32::from(m.length) + 2 {
                return e.err(
                    s.span(),
                    "sf",
                    format!("offset {at} is outside model {} (length {})", m.id, m.length),
                );
            }
            Location::SunSpec {
                model: m.id,
                offset: at,
            }
        }
        None => Location::Absolute(at),
    }))
}

/// A set-point is written as one value to one known place: anything whose raw value depends on
/// another register (a scale factor) or on discovery (a SunSpec base) cannot be.
fn writable(e: &Entry, shape: &Point, in_model: bool) -> Result<bool, MapError> {
    match &e.get().writable {
        Some(w) if *w.get_ref() => {
            if shape.function != Function::Holding
                || in_model
                || shape.scale_factor.is_some()
                || shape.data_type == DataType::String
            {
                return e.err(
                    w.span(),
                    "writable",
                    "only numeric holding registers at an absolute address without `sf` can be written",
                );
            }
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// How an entry repeats (strings, MPPTs): `count` points `stride` registers apart, numbered from
/// `first` into the `{n}` of the metric.
struct Repeat {
    count: u16,
    stride: u16,
    first: u16,
}

fn repeat(e: &Entry, words: u16) -> Result<Repeat, MapError> {
    let r = e.get();
    let repeat = match (&r.repeat, &r.stride) {
        (None, None) => Repeat {
            count: 1,
            stride: 0,
            first: 1,
        },
        (Some(n), Some(s)) => {
            let count: u16 = e.int_in(n, "repeat", "1-999")?;
            let stride: u16 = e.int_in(s, "stride", "0-65535")?;
            if count == 0 || count > 999 {
                return e.err(n.span(), "repeat", "must be 1-999");
            }
            if stride < words {
                return e.err(
                    s.span(),
                    "stride",
                    "smaller than the point: repeats would overlap",
                );
            }
            let first = match &r.first {
                Some(v) => e.int_in(v, "first", "1-999")?,
                None => 1,
            };
            Repeat { count, stride, first }
        }
        (Some(n), None) => return e.err(n.span(), "stride", "`repeat` needs `stride`"),
        (None, Some(s)) => return e.err(s.span(), "repeat", "`stride` needs `repeat`"),
    };
    let templated = r.metric.get_ref().contains("{n}");
    if templated != r.repeat.is_some() {
        return e.err(
            r.metric.span(),
            "metric",
            "`{n}` in a metric name and `repeat` go together",
        );
    }
    Ok(repeat)
}

/// Appends one point per repeat, each with its metric name and register.
fn expand(
    e: &Entry,
    shape: &Point,
    base: u16,
    model: Option<&SunSpecModel>,
    repeat: &Repeat,
    out: &mut Vec<Point>,
) -> Result<(), MapError> {
    let r = e.get();
    for k in 0..repeat.count {
        let metric = r.metric.get_ref().replace("{n}", &(repeat.first + k).to_string());
        check_metric(e, &metric, &shape.unit)?;
        let Some(start) = k.checked_mul(repeat.stride).and_then(|d| base.checked_add(d)) else {
            return e.err(e.span(), "repeat", "runs past register 65535");
        };
        let location = locate(e, &metric, start, shape.words, model)?;
        // One metric may come from different registers in different variants, never twice in one.
        if out
            .iter()
            .any(|q: &Point| q.metric == metric && !exclusive(&q.when, &shape.when))
        {
            return e.err(r.metric.span(), "metric", format!("{metric} is mapped twice"));
        }
        out.push(Point {
            metric,
            location,
            ..shape.clone()
        });
    }
    Ok(())
}

/// The metric must exist and the entry's unit must measure it: kW for a voltage would decode
/// to a number in the wrong dimension that no later check could catch.
fn check_metric(e: &Entry, metric: &str, unit: &Unit) -> Result<(), MapError> {
    let r = e.get();
    let Some(def) = metrics::lookup(metric) else {
        return e.err(
            r.metric.span(),
            "metric",
            format!("unknown metric {metric:?} (see shared::metrics)"),
        );
    };
    if def.def.dimension != unit.dimension {
        return e.err(
            r.unit.span(),
            "unit",
            format!(
                "{:?} is not a unit of {metric} (canonical unit {})",
                unit.symbol,
                def.unit()
            ),
        );
    }
    Ok(())
}

/// The location of one repeat starting at `start`, which must fit in the register space and,
/// for SunSpec, inside its model (whose first point is at offset 2, after ID and length).
fn locate(
    e: &Entry,
    metric: &str,
    start: u16,
    words: u16,
    model: Option<&SunSpecModel>,
) -> Result<Location, MapError> {
    if u32::from(start) + u32::from(words) > 65536 {
        return e.err(e.span(), "address", "runs past register 65535");
    }
    Ok(match model {
        Some(m) => {
            // In u32: a model may be up to 65535 registers long, so its end may not fit in a u16.
            if u32::from(start) + u32::from(words) > u32::from(m.length) + 2 {
                return e.err(
                    e.span(),
                    "offset",
                    format!("{metric} ends past model {} (length {})", m.id, m.length),
                );
            }
            Location::SunSpec {
                model: m.id,
                offset: start,
            }
        }
        None => Location::Absolute(start),
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{GOOD, parse, refused};
    use super::super::schema::Location;

    #[test]
    fn only_plain_holding_registers_can_be_writable() {
        let m = parse(&GOOD.replacen(
            "type = \"u16\"\nfunction = 3",
            "type = \"u16\"\nfunction = 3\nwritable = true",
            1,
        ))
        .unwrap();
        let writable: Vec<_> = m
            .points
            .iter()
            .filter(|p| p.writable)
            .map(|p| &p.metric)
            .collect();
        assert_eq!(writable, ["status_code"]);
        // ac_power is an input register (function 4 from the limits).
        refused(
            "scale = 0.001\n",
            "scale = 0.001\nwritable = true\n",
            19,
            "point[0].writable",
            "only numeric holding registers",
        );
    }

    #[test]
    fn point_mistakes_are_refused_with_file_line_and_field() {
        refused(
            "type = \"i32\"",
            "type = \"i33\"",
            17,
            "point[0].type",
            "unknown type",
        );
        refused(
            "metric = \"ac_power\"",
            "metric = \"ac_powr\"",
            14,
            "point[0].metric",
            "unknown metric",
        );
        refused(
            "unit = \"kW\"",
            "unit = \"V\"",
            15,
            "point[0].unit",
            "not a unit of ac_power",
        );
        refused(
            "unit = \"kW\"",
            "unit = \"kw\"",
            15,
            "point[0].unit",
            "unknown unit",
        );
    }

    const SUNSPEC_MAP: &str = r#"
[device]
manufacturer = "SunSpec"
model = "m"
kind = "inverter"
source = "s"
[limits]
sentinels = "sunspec"
[sunspec]
models = [{ id = 103, length = 50 }]
[[point]]
metric = "ac_power"
unit = "W"
model = 103
offset = 14
sf = 15
type = "i16"
"#;

    #[test]
    fn sunspec_points_must_stay_inside_their_model() {
        let text = SUNSPEC_MAP;
        let m = parse(text).unwrap();
        assert_eq!(
            m.points[0].location,
            Location::SunSpec {
                model: 103,
                offset: 14
            }
        );
        assert_eq!(
            m.points[0].scale_factor,
            Some(Location::SunSpec {
                model: 103,
                offset: 15
            })
        );
        let err = parse(&text.replace("offset = 14", "offset = 52")).unwrap_err();
        assert!(err.message.contains("past model 103"), "{err}");
        let err = parse(&text.replace("sf = 15", "sf = 14")).unwrap_err();
        assert!(err.message.contains("overlaps"), "{err}");
        let err = parse(&text.replace("model = 103\n", "model = 160\n")).unwrap_err();
        assert_eq!(err.field, "point[0].model");
    }

    #[test]
    fn bounds_at_the_end_of_the_register_space_are_refused_not_overflowed() {
        // A model as long as a u16 allows: its end (offset 2 + length) does not fit in a u16.
        let long = SUNSPEC_MAP.replace("length = 50", "length = 65535");
        let m = parse(&long).unwrap();
        assert_eq!(m.sunspec[0].length, 65535);
        let err = parse(&SUNSPEC_MAP.replace("offset = 14", "offset = 65535")).unwrap_err();
        assert!(err.message.contains("past model 103"), "{err}");
        assert_eq!(err.field, "point[0].offset");
    }
}
