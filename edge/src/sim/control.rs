//! Changes to running simulated devices, written as lines to a file the simulator watches, so a
//! test outside the process (the console's browser tests) can make a device restart with
//! another SunSpec layout or serve an implausible value at the moment it chooses.
//!
//! One command a line, applied once, in the order written (lines are only appended):
//!
//! - `restart UNIT MODEL,MODEL,... BASE`: the device restarts with these models behind a `SunS`
//!   marker at `BASE` (see [`SimDevice::restart`]);
//! - `register UNIT FUNCTION ADDRESS VALUE`: sets one register (function 3 holding, 4 input; the
//!   address as in the device's canonical layout, i.e. before any restart), as the device itself
//!   would; a signed value is written as its 16-bit two's complement.
//!
//! Empty lines and lines starting with `#` are skipped.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use pv_shared::regmap::Function;

use super::SimDevice;

/// One command of a control file.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Restart {
        unit: u8,
        order: Vec<u16>,
        base: u16,
    },
    Register {
        unit: u8,
        function: Function,
        address: u16,
        value: u16,
    },
}

#[derive(Debug, thiserror::Error, PartialEq)]
#[error("control line {line:?}: {why}")]
pub struct ParseError {
    line: String,
    why: &'static str,
}

impl Command {
    pub fn unit(&self) -> u8 {
        match self {
            Command::Restart { unit, .. } | Command::Register { unit, .. } => *unit,
        }
    }

    /// Parses one line; `None` for a blank or comment line.
    pub fn parse(line: &str) -> Result<Option<Command>, ParseError> {
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            return Ok(None);
        }
        let err = |why| ParseError {
            line: text.to_owned(),
            why,
        };
        let words: Vec<&str> = text.split_whitespace().collect();
        let unit = |w: &str| w.parse::<u8>().map_err(|_| err("unit id must be 0-255"));
        match words.as_slice() {
            ["restart", u, order, base] => {
                let order = order
                    .split(',')
                    .map(|m| m.trim().parse::<u16>())
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| err("models are SunSpec model ids, comma separated"))?;
                let base = base.parse().map_err(|_| err("base must be a register address"))?;
                Ok(Some(Command::Restart {
                    unit: unit(u)?,
                    order,
                    base,
                }))
            }
            ["register", u, function, address, value] => {
                let function = match *function {
                    "3" => Function::Holding,
                    "4" => Function::Input,
                    _ => return Err(err("function must be 3 (holding) or 4 (input)")),
                };
                let address = address.parse().map_err(|_| err("address must be 0-65535"))?;
                let value = match value.parse::<i32>() {
                    Ok(v) if (-32768..=65535).contains(&v) => v as u16,
                    _ => return Err(err("value must fit in 16 bits")),
                };
                Ok(Some(Command::Register {
                    unit: unit(u)?,
                    function,
                    address,
                    value,
                }))
            }
            _ => Err(err(
                "expected `restart UNIT MODELS BASE` or `register UNIT FUNCTION ADDRESS VALUE`",
            )),
        }
    }

    fn apply(&self, dev: &SimDevice) -> Result<(), String> {
        match self {
            Command::Restart { order, base, .. } => dev.restart(order, *base).map_err(|e| e.to_string()),
            Command::Register {
                function,
                address,
                value,
                ..
            } => {
                dev.set_register(*function, *address, *value);
                Ok(())
            }
        }
    }
}

/// Watches `path` for ever, applying each new line to the devices with its unit id (on every
/// bus). A missing file is no command yet; a bad line or an unknown unit is reported and skipped.
pub async fn watch(path: PathBuf, devices: Vec<(u8, Arc<SimDevice>)>) {
    let mut applied = 0usize;
    loop {
        applied = apply_new(&path, &devices, applied);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Applies the complete lines after the first `applied`; returns how many are applied now.
fn apply_new(path: &Path, devices: &[(u8, Arc<SimDevice>)], applied: usize) -> usize {
    let Ok(text) = std::fs::read_to_string(path) else {
        return applied;
    };
    // A line still being written (no newline yet) waits for the next look.
    let complete = text.rfind('\n').map_or("", |end| &text[..end]);
    let lines: Vec<&str> = complete.lines().collect();
    for line in lines.iter().skip(applied) {
        match Command::parse(line) {
            Ok(None) => {}
            Ok(Some(cmd)) => {
                let targets: Vec<_> = devices.iter().filter(|(u, _)| *u == cmd.unit()).collect();
                if targets.is_empty() {
                    eprintln!("control: no device at unit {}: {line}", cmd.unit());
                }
                for (_, dev) in targets {
                    match cmd.apply(dev) {
                        Ok(()) => eprintln!("control: {line}"),
                        Err(e) => eprintln!("control: {line}: {e}"),
                    }
                }
            }
            Err(e) => eprintln!("{e}"),
        }
    }
    applied.max(lines.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sunspec() -> Arc<SimDevice> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../firmware-configs");
        let maps = pv_shared::regmap::RegisterMap::load_dir(Path::new(dir)).expect("maps");
        let map = maps
            .into_iter()
            .find(|m| m.id == "sunspec-inverter")
            .expect("map");
        Arc::new(SimDevice::new(Arc::new(map), 1).expect("simulate"))
    }

    #[test]
    fn lines_parse_into_commands_and_bad_ones_are_refused() {
        assert_eq!(
            Command::parse(" restart 1 160,1,103 50000 ").unwrap(),
            Some(Command::Restart {
                unit: 1,
                order: vec![160, 1, 103],
                base: 50000
            })
        );
        assert_eq!(
            Command::parse("register 2 3 40092 -3").unwrap(),
            Some(Command::Register {
                unit: 2,
                function: Function::Holding,
                address: 40092,
                value: 0xFFFD
            })
        );
        assert_eq!(Command::parse("# note").unwrap(), None);
        assert!(Command::parse("register 2 5 40092 1").is_err());
        assert!(Command::parse("register 2 3 40092 70000").is_err());
        assert!(Command::parse("restart 1 1,x 40000").is_err());
        assert!(Command::parse("reboot 1").is_err());
    }

    #[test]
    fn each_complete_line_is_applied_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("control");
        let dev = sunspec();
        let devices = vec![(2u8, dev.clone())];
        assert_eq!(apply_new(&file, &devices, 0), 0, "no file yet");

        std::fs::write(&file, "register 2 3 40092 2070\nregister 2 3 40093 0").unwrap();
        let n = apply_new(&file, &devices, 0);
        assert_eq!(n, 1, "the unfinished second line waits");
        assert_eq!(dev.register(Function::Holding, 40092), Some(2070));
        assert_ne!(dev.register(Function::Holding, 40093), Some(0));

        // The first line is not applied again: a value the device changed since stays.
        dev.set_register(Function::Holding, 40092, 7);
        std::fs::write(&file, "register 2 3 40092 2070\nregister 2 3 40093 0\nbad line\n").unwrap();
        assert_eq!(apply_new(&file, &devices, n), 3);
        assert_eq!(dev.register(Function::Holding, 40092), Some(7));
        assert_eq!(dev.register(Function::Holding, 40093), Some(0));

        // A restart moves the chain: the SunS marker is now at the new base.
        std::fs::write(&file, "a\nb\nc\nrestart 2 160,103 50000\n").unwrap();
        assert_eq!(apply_new(&file, &devices, 3), 4);
        assert_eq!(
            dev.read(Function::Holding, 50000, 3),
            Ok(vec![0x5375, 0x6e53, 160])
        );
        assert_eq!(dev.register(Function::Holding, 40093), Some(0), "values are kept");
    }
}
