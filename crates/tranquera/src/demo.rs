//! `tranquera demo`: the sandbox an integrator runs on a laptop. An embedded SQLite file, migrated and seeded with
//! deterministic demo data on first run, reused on later runs (or rebuilt with `--reset`), and the fixed demo
//! accounts printed at start.

use std::net::SocketAddr;
use std::path::Path;

use clap::Args;
use demo::{DemoOptions, DEMO_ACCOUNTS};
use domain::webhooks::UrlPolicy;
use server::config::DocsLogin;
use server::Application;

use crate::settings::{close, connect, init_logging, AuthArgs, DatabaseArgs, Failure, HttpArgs, SqliteSynchronous};

/// Where the server serves the guides (`server::routes::guides`).
const GUIDES: &str = "/docs/guides";

/// Flags of `tranquera demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The demo database; deliberately not read from DATABASE_URL, so a demo never touches a production database.
    #[arg(long = "database", default_value = "sqlite://tranquera-demo.sqlite")]
    database: String,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Delete the demo database first and seed it anew.
    #[arg(long)]
    reset: bool,
    /// Multiply the demo data (farmers, and everything under them) for load tests.
    #[arg(long, default_value_t = 1)]
    scale: u32,
    #[command(flatten)]
    auth: AuthArgs,
    #[command(flatten)]
    http: HttpArgs,
}

/// Prepares the demo database and serves it.
pub async fn run(args: DemoArgs) -> Result<(), Failure> {
    init_logging(args.http.log_json);
    // Bound before the database is touched: a port already in use fails at once, not after a whole seeding.
    let listener = server::bind(args.listen)
        .await
        .map_err(|error| crate::say::cannot_listen(args.listen, &error, "--listen"))?;
    if args.reset {
        reset(&args.database)?;
    }
    let database = DatabaseArgs {
        url: args.database.clone(),
        db_max_connections: 16,
        db_acquire_timeout: 5,
        sqlite_synchronous: SqliteSynchronous::Normal,
    };
    let store = connect(&database, Some(&args.auth)).await?;
    store.migrate().await?;
    let data = prepare(&store, &args).await?;
    let mut config = args.http.server_config(args.listen);
    // Integrators test webhooks against a receiver on their own machine.
    config.webhooks.policy = UrlPolicy::DEMO;
    // The seeded jobs are the season's history, months old: the sandbox keeps them to be read.
    config.housekeeping.finished_jobs = std::time::Duration::MAX;
    // The sandbox is where integrators debug their first calls: the console is on unless turned off.
    config.console.enabled = args.http.console.unwrap_or(true);
    let console = config.console.enabled;
    // The reference at /docs offers the first integrator account, as the banner does.
    config.docs_login = DEMO_ACCOUNTS
        .iter()
        .find(|account| account.api_role)
        .map(|account| DocsLogin::new(account.email, account.password, "8"));
    let app = Application::build_on(listener, store.clone(), config).await?;
    print_banner(app.local_addr()?, &args.http.header_token, console);
    println!("{data}");
    app.run_until_stopped().await?;
    close(&store).await;
    Ok(())
}

/// Seeds the demo data on first run, or finds it from an earlier one; answers what the banner ends with. While
/// the seeding runs only one line goes to standard error, so that the banner is the first thing standard output
/// shows.
async fn prepare(store: &store::Store, args: &DemoArgs) -> Result<String, Failure> {
    if demo::is_seeded(store).await? {
        let mut data = format!(
            "The demo data in {} is an earlier run's (--reset rebuilds it).",
            args.database
        );
        let users = store.admin().users(None).await?;
        let missing: Vec<&str> = DEMO_ACCOUNTS
            .iter()
            .map(|account| account.email)
            .filter(|email| !users.iter().any(|user| user.email.eq_ignore_ascii_case(email)))
            .collect();
        if !missing.is_empty() {
            // A database seeded by an older release lacks the newer societies, and keeps the catalogues it seeded
            // itself beside the reference data this release loaded.
            data.push_str(&format!(
                "\nThis demo database was made by an older release: it has no {}. Run with --reset to rebuild it \
                 with every country.",
                missing.join(", ")
            ));
        }
        return Ok(data);
    }
    eprintln!("Seeding the demo data (scale {}), once…", args.scale);
    let summary = demo::demo(
        store,
        &DemoOptions {
            scale: args.scale,
            ..DemoOptions::default()
        },
    )
    .await?;
    let mut data = format!(
        "Demo data seeded in {}: {} farmers, {} establishments, {} plots, in these societies:",
        args.database, summary.farmers, summary.establishments, summary.plots
    );
    for (id, country, name) in &summary.societies {
        data.push_str(&format!("\n  society {id}: {name} ({country})"));
    }
    Ok(data)
}

/// Deletes a SQLite demo database and its WAL files; refuses anything else.
fn reset(url: &str) -> Result<(), Failure> {
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .ok_or("--reset only deletes SQLite demo databases; drop a PostgreSQL database yourself")?;
    for suffix in ["", "-wal", "-shm"] {
        let file = format!("{path}{suffix}");
        if Path::new(&file).exists() {
            std::fs::remove_file(&file)?;
        }
    }
    Ok(())
}

fn print_banner(address: SocketAddr, token: &str, console: bool) {
    let base = format!("http://{address}");
    println!("Tranquera demo: the integration API is at {base}");
    println!("Every call needs the header X-{token}-SYSTEM-ID: 8.");
    println!("The guides (es, pt, en), from the first call to webhooks: {base}{GUIDES}");
    println!("The reference, where you can log in and try every call: {base}/docs");
    if console {
        println!("Your requests, as the server saw them: {base}/console (log in with an account below).");
    }
    println!();
    println!("Demo accounts:");
    for account in DEMO_ACCOUNTS {
        let role = if account.api_role {
            "api_integrated"
        } else {
            "no API role (login refused with 403)"
        };
        println!(
            "  {}  {:<36} {:<14} {role}",
            account.country, account.email, account.password
        );
    }
    if let Some(first) = DEMO_ACCOUNTS.first() {
        println!("\nTry:");
        println!(
            "  curl -s -X POST {base}/api/v2/login -H 'Content-Type: application/json' -H 'X-{token}-SYSTEM-ID: 8' \\\n    -d '{{\"email\":\"{}\",\"password\":\"{}\"}}'",
            first.email, first.password
        );
    }
    println!("\nCtrl-C stops the server; the data stays for the next run.");
}
