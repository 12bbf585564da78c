//! `pv-mock-vendors [--port N] [--now MS] [--plants N] [--inverters N]`: starts the four mock
//! vendor clouds and prints one JSON line (platform code → baseUrl and demo credentials, and the
//! control URL), then serves until killed.

use std::io::Write;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let mut cfg = pv_mock_vendors::MockConfig::default();
    let number = |name: &str| {
        arg(&args, name).map(|v| {
            v.parse::<i64>()
                .map_err(|e| std::io::Error::other(format!("{name}: {e}")))
        })
    };
    if let Some(ms) = number("--now").transpose()? {
        cfg.now_ms = Some(ms);
    }
    if let Some(n) = number("--plants").transpose()? {
        cfg.plants = n.max(1) as usize;
    }
    if let Some(n) = number("--inverters").transpose()? {
        cfg.inverters_per_plant = n.clamp(1, 98) as usize;
    }
    let port = number("--port").transpose()?.unwrap_or(0) as u16;
    let mock = pv_mock_vendors::start_on(cfg, port).await?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", mock.describe())?;
    out.flush()?;
    drop(out);
    tokio::signal::ctrl_c().await?;
    Ok(())
}
