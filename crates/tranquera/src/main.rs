//! The `tranquera` command: the integration API as a demo sandbox, a production server, and its operator tools.
//!
//! # Layout
//! - `settings`: the flags (and environment variables) the subcommands share.
//! - `say`: the language the command speaks to a person (`--lang`, else the locale), and its messages.
//! - one file per subcommand: `demo`, `serve`, `migrate`, `admin`, `openapi`, `sync`, `listen`, `bench_data`,
//!   `trigger`;
//!   `login`: how `sync` and `listen` reach the API; `csv_cells`: the cells of every CSV file they write.

mod admin;
mod bench_data;
mod csv_cells;
mod demo;
mod listen;
mod login;
mod migrate;
mod openapi;
mod say;
mod serve;
mod settings;
mod sync;
mod trigger;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc rather than glibc's allocator: a request allocates and frees many small values (rows, strings, the
/// answer's buffer) on whichever worker thread runs it, and glibc's malloc was a large part of the server's work on
/// an uncached page.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`, which its Rust bindings do not name: its place in `mi_option_t` (mimalloc.h),
/// the same in mimalloc 2 and 3, which keep retired options' places.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Has mimalloc hand memory that is free again back to the system at once, instead of a second later: with many
/// connections the delay raised the peak resident memory markedly. It costs part of mimalloc's gain on kept
/// pages (the `madvise` calls), none on the uncached ones.
#[allow(
    unsafe_code,
    reason = "the one call into mimalloc's C API; mimalloc reads the option at every purge"
)]
fn return_free_memory_at_once() {
    // SAFETY: `mi_option_set` stores a number in mimalloc's table of options, and a purge delay of 0 is documented.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
}

/// How many heaps glibc's `malloc` may keep. Only SQLite, which is C, allocates there (Rust goes to mimalloc), and
/// glibc gives each thread that finds the heap busy an arena of its own: on a SQLite server with many connections
/// they hold mostly each connection's parse of the schema, spread over them. One arena holds the same live memory
/// with less slack.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const GLIBC_ARENAS: libc::c_int = 1;

/// Caps glibc's arenas before any thread exists, so that SQLite's connections share one: `mallopt` is glibc's own
/// runtime form of `MALLOC_ARENA_MAX`, which operators would otherwise have to set in the environment.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(
    unsafe_code,
    reason = "the one call into glibc's malloc options, made before the runtime starts any thread"
)]
fn share_one_glibc_heap() {
    // SAFETY: `mallopt` only stores the option; `M_ARENA_MAX` with a positive value is documented in mallopt(3).
    unsafe { libc::mallopt(libc::M_ARENA_MAX, GLIBC_ARENAS) };
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn share_one_glibc_heap() {}

/// The third-party integration API of the agricultural management platform.
#[derive(Debug, Parser)]
#[command(name = "tranquera", version, about)]
struct Cli {
    /// The language of messages (es, pt or en), asked of the API too; by default the locale's (LC_ALL,
    /// LC_MESSAGES, LANG), else English.
    #[arg(long, global = true, value_enum, value_name = "LANG")]
    lang: Option<say::LangArg>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the API on a local SQLite file with realistic demo data and documented credentials.
    Demo(demo::DemoArgs),
    /// Run the API in production, on PostgreSQL or SQLite; migrations are applied at start.
    Serve(serve::ServeArgs),
    /// Apply pending migrations and exit.
    Migrate(migrate::MigrateArgs),
    /// Create what the API does not: societies, users, farmers, API keys; revoke tokens.
    Admin(admin::AdminArgs),
    /// Print the OpenAPI 3.1 document of every route.
    Openapi(openapi::OpenApiArgs),
    /// Mirror every list of a society into a folder (JSONL, CSV or SQLite); later runs fetch only what changed.
    Sync(sync::SyncArgs),
    /// Follow a society's change feed and forward each event, signed like a webhook delivery, to a local URL.
    Listen(listen::ListenArgs),
    /// Grow the demo's Argentine society to the benchmark's size (see docs/performance.md).
    BenchData(bench_data::BenchDataArgs),
    /// Make a real change in the demo's database that emits an event of the type named (for webhooks and the feed).
    Trigger(trigger::TriggerArgs),
}

fn main() -> ExitCode {
    return_free_memory_at_once();
    share_one_glibc_heap();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("tranquera: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run(Cli::parse()))
}

async fn run(cli: Cli) -> ExitCode {
    say::choose(cli.lang);
    let outcome = match cli.command {
        Command::Demo(args) => demo::run(args).await,
        Command::Serve(args) => serve::run(args).await,
        Command::Migrate(args) => migrate::run(args).await,
        Command::Admin(args) => admin::run(args).await,
        Command::Openapi(args) => openapi::run(args),
        Command::Sync(args) => sync::run(args).await,
        Command::Listen(args) => listen::run(args).await,
        Command::BenchData(args) => bench_data::run(args).await,
        Command::Trigger(args) => trigger::run(args).await,
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("tranquera: {}", say::failure(error.as_ref()));
            ExitCode::FAILURE
        }
    }
}
