//! A small good map for the parser's tests, and a helper that breaks it in one place.
//!
//! Line numbers in the tests count from this text (its first line is empty), so edits here
//! move every expected line.

use std::path::Path;

use super::{MapError, RegisterMap};

pub const GOOD: &str = r#"
[device]
manufacturer = "Acme"
model = "X1"
kind = "inverter"
source = "test"

[limits]
max_block = 10
function = 4
word_order = "little"

[[point]]
metric = "ac_power"
unit = "kW"
address = 100
type = "i32"
scale = 0.001

[[point]]
metric = "pv{n}_voltage"
unit = "V"
address = 110
type = "u16"
scale = 0.1
repeat = 8
stride = 2

[[point]]
metric = "status_code"
unit = "code"
address = 130
type = "u16"
function = 3

[[point]]
metric = "fault_word1"
unit = "code"
address = 131
type = "u16"
function = 3

[[status]]
code = 512
zh = "并网"
en = "On-grid"
state = "running"

[[fault]]
point = "fault_word1"
bit = 3
id = 2012
zh = "组串电流反灌"
en = "String current backfeed"
severity = "warning"
"#;

pub fn parse(text: &str) -> Result<RegisterMap, MapError> {
    RegisterMap::parse(Path::new("maps/acme-x1.toml"), text)
}

/// Replaces `from` in the good map and expects an error on `line` naming `field`.
pub fn refused(from: &str, to: &str, line: usize, field: &str, says: &str) {
    assert!(GOOD.contains(from), "{from}");
    let err = parse(&GOOD.replacen(from, to, 1)).unwrap_err();
    assert_eq!(err.file, Path::new("maps/acme-x1.toml"));
    assert_eq!((err.line, err.field.as_str()), (line, field), "{err}");
    assert!(err.message.contains(says), "{err}");
}
