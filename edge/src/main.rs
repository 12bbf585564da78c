//! Gateway agent. The polling pipeline (Modbus transports, decoding, the durable queue and the
//! MQTT uplink) is built in its own issue; this binary already carries the command-line shape.

use clap::Parser;

#[derive(Parser, Debug)]
#[command(name = "pv-edge", version, about = "PV station gateway agent")]
struct Args {
    /// Path of the gateway configuration file.
    #[arg(long, short, default_value = "pv-edge.toml")]
    config: std::path::PathBuf,
}

fn main() {
    let args = Args::parse();
    eprintln!(
        "pv-edge {}: wire contract v{}; config {} (the polling pipeline is not built yet)",
        env!("CARGO_PKG_VERSION"),
        pv_shared::topics::WIRE_VERSION,
        args.config.display()
    );
    std::process::exit(2);
}
