use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use pv_cloud::config::Config;
use tracing_subscriber::EnvFilter;

#[derive(Parser, Debug)]
#[command(
    name = "pv-cloud",
    version,
    about = "PV station O&M platform: cloud hub and console"
)]
struct Args {
    /// TOML configuration file; `PV_*` environment variables override it.
    #[arg(long, short)]
    config: Option<PathBuf>,
    /// Print the effective configuration (secrets hidden) and exit.
    #[arg(long)]
    print_config: bool,
    #[command(subcommand)]
    command: Option<Task>,
}

/// Without a subcommand the hub serves.
#[derive(clap::Subcommand, Debug)]
enum Task {
    /// Copy the database (SQLite `VACUUM INTO`, PostgreSQL `pg_dump`) and the data directory's
    /// files into a new folder; safe while the hub runs.
    Backup { dir: PathBuf },
    /// Put a backup back, with the hub stopped, into a data directory without a database file (or
    /// an empty PostgreSQL database).
    Restore { dir: PathBuf },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let config = match Config::load(args.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("pv-cloud: {e}");
            return ExitCode::from(2);
        }
    };
    if args.print_config {
        let mut shown = config.clone();
        if !shown.token_secret.is_empty() {
            shown.token_secret = "***".into();
        }
        if !shown.metrics.token.is_empty() {
            shown.metrics.token = "***".into();
        }
        shown.database_url = pv_cloud::kernel::db::redact(&shown.database_url);
        println!("{}", toml_like(&shown));
        return ExitCode::SUCCESS;
    }
    init_logs(&config);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pv-cloud: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(task) = args.command {
        let (what, done) = match &task {
            Task::Backup { dir } => (
                "backup",
                runtime.block_on(pv_cloud::ops::backup::backup(&config, dir)),
            ),
            Task::Restore { dir } => (
                "restore",
                runtime.block_on(pv_cloud::ops::backup::restore(&config, dir)),
            ),
        };
        return match done {
            Ok(()) => {
                println!("pv-cloud: {what} done");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("pv-cloud: {what}: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match runtime.block_on(pv_cloud::server::run(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("pv-cloud: {e}");
            ExitCode::FAILURE
        }
    }
}

fn toml_like(config: &Config) -> String {
    serde_json::to_string_pretty(config).unwrap_or_default()
}

fn init_logs(config: &Config) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(&config.log.filter));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    if config.log.json {
        builder.json().init();
    } else {
        builder.init();
    }
}
