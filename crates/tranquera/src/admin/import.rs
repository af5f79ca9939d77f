//! `tranquera admin import RESOURCE FILE`: a file of master data loaded into a society (or, for the per-country
//! catalogues, a country), whole or not at all. A reader thread decodes and checks the rows while the store stages
//! them; the store then checks them against the database and writes them in one transaction. A refused file's report
//! names every bad row (the first 200 and a count) in the operator's language.

use std::path::PathBuf;

use clap::Args;
use domain::import::Row;
use domain::Lang;
use server::i18n::import::{problem_line, refused_heading, summary, unnamed};
use store::import::{resource, resources, ImportResource, Outcome, Owner, Ownership};
use store::Store;

use super::files::{self, Format};
use crate::settings::Failure;
use crate::sync::progress::Reporter;

/// Rows staged at a time: large enough for multi-row statements, small enough that memory stays flat.
const CHUNK: usize = 2_000;
/// Chunks read ahead of the store.
const READ_AHEAD: usize = 4;

/// Whose records, and in which language the report is written: the flags `import` and `export` share.
#[derive(Debug, Clone, Args)]
pub struct Target {
    /// The society whose records these are (every resource but the per-country catalogues).
    #[arg(long)]
    pub society: Option<i64>,
    /// The country whose catalogue this is (master_campaign_cycles, planting_times, formulateds), e.g. PY.
    #[arg(long)]
    pub country: Option<String>,
    /// The language of messages: es, pt or en; by default LC_ALL's or LANG's, else Spanish.
    #[arg(long, value_enum)]
    pub lang: Option<LangArg>,
}

/// A language a report is written in: the type of the command's global `--lang` too, which this flag shares its
/// name with (clap hands one flag's value to the other).
pub use crate::say::LangArg;

impl Target {
    /// The language asked for, else the locale's, else Spanish.
    pub fn lang(&self) -> Lang {
        match self.lang {
            Some(LangArg::Es) => Lang::Es,
            Some(LangArg::Pt) => Lang::Pt,
            Some(LangArg::En) => Lang::En,
            None => ["LC_ALL", "LC_MESSAGES", "LANG"]
                .iter()
                .filter_map(|name| std::env::var(name).ok().filter(|value| !value.is_empty()))
                .next()
                .and_then(|locale| Lang::from_locale(&locale))
                .unwrap_or_default(),
        }
    }

    /// The resource named and whose records of it these are, as the flags say.
    pub async fn resolve(&self, store: &Store, name: &str) -> Result<(&'static ImportResource, Owner), Failure> {
        let resource = resource(name).ok_or_else(|| {
            let names: Vec<_> = resources().iter().map(|resource| resource.name).collect();
            format!("unknown resource {name:?}; use one of {}", names.join(", "))
        })?;
        let owner = match (resource.ownership, self.society, &self.country) {
            (Ownership::Society, Some(society), None) => store
                .import_owner(society)
                .await?
                .ok_or_else(|| format!("there is no society {society}"))?,
            (Ownership::Country, None, Some(country)) => {
                let country = domain::country::country(country).ok_or_else(|| {
                    let known: Vec<_> = domain::country::COUNTRIES.iter().map(|c| c.code).collect();
                    format!("unknown country {country:?}; use one of {}", known.join(", "))
                })?;
                Owner::Country(country.code.to_owned())
            }
            (Ownership::Society, ..) => {
                return Err(format!("{} belong to a society: give --society ID", resource.name).into())
            }
            (Ownership::Country, ..) => {
                return Err(format!("{} are a per-country catalogue: give --country CODE", resource.name).into())
            }
        };
        Ok((resource, owner))
    }
}

/// Flags of `tranquera admin import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// What the file holds: farmers, establishments, plots, master_campaigns, campaigns, contractors, machines,
    /// warehouses, tags, applicators, master_campaign_cycles (or cycles), planting_times, formulateds.
    resource: String,
    /// The file: CSV with a header row of field names, or JSONL.
    file: PathBuf,
    #[command(flatten)]
    target: Target,
    /// The file's format; by default its extension's (.jsonl is JSONL, anything else CSV).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// The file's encoding (utf-8, latin1, windows-1252, …); by default UTF-8, or Windows-1252 when it is not UTF-8.
    #[arg(long)]
    encoding: Option<String>,
    /// No progress, only the outcome.
    #[arg(long)]
    quiet: bool,
}

/// Runs an import; a refused file is reported on standard error and fails the command.
pub async fn run(store: &Store, args: ImportArgs) -> Result<(), Failure> {
    let lang = args.target.lang();
    let (resource, owner) = args.target.resolve(store, &args.resource).await?;
    let forced = args.encoding.as_deref().map(files::encoding).transpose()?;
    let path = args.file.clone();
    let survey = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || files::survey(&path, forced)).await??
    };
    let format = args.format.unwrap_or_else(|| Format::of(&path));
    let reporter = Reporter::new(args.quiet);
    let mut task = reporter.start_as("import", resource.name, "reading");
    task.expect(survey.lines.saturating_sub(u64::from(format == Format::Csv)));
    let mut load = store.begin_import(resource, owner).await?;
    let (chunks, mut staged) = tokio::sync::mpsc::channel::<Vec<(u64, Row)>>(READ_AHEAD);
    let fields = resource.fields();
    let guessed = survey.guessed.then(|| survey.encoding.name());
    let reader = tokio::task::spawn_blocking(move || {
        let mut chunk = Vec::with_capacity(CHUNK);
        let reading = files::read_rows(&path, &survey, format, &fields, |number, row| {
            chunk.push((number, row));
            if chunk.len() == CHUNK {
                let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
                chunks.blocking_send(full).map_err(|_| "the import stopped")?;
            }
            Ok(())
        });
        if !chunk.is_empty() {
            // A store that stopped has said why; the reader has nothing to add.
            let _ = chunks.blocking_send(chunk);
        }
        reading
    });
    while let Some(chunk) = staged.recv().await {
        let rows = chunk.len() as u64;
        load.stage(chunk).await?;
        task.page(rows);
    }
    let files::Reading { present, problems, .. } = reader.await??;
    task.finish(&format!("{} rows read", load.staged()));
    reporter.note(&format!("import {}: checking and writing", resource.name));
    match load.finish(store, &present, problems).await? {
        Outcome::Loaded(counts) => {
            println!("{}", summary(resource.name, counts, guessed, lang));
            Ok(())
        }
        Outcome::Refused(problems) => {
            let total = problems.total();
            let named = problems.named();
            for problem in &named {
                eprintln!("{}", problem_line(resource.name, problem, lang));
            }
            let rest = total.saturating_sub(named.len() as u64);
            if rest > 0 {
                eprintln!("{}", unnamed(rest, lang));
            }
            Err(refused_heading(&args.file.display().to_string(), total, lang).into())
        }
    }
}
