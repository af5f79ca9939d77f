//! How a sync reports progress: a bar per resource on a terminal, plain lines otherwise, nothing when quiet.
//!
//! Plain lines are for logs and CI, where redrawn bars turn into noise; they say the same things a bar shows.

use std::io::IsTerminal as _;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Where progress goes, chosen once per run.
pub enum Reporter {
    /// indicatif bars on the terminal.
    Bars(MultiProgress),
    /// One line per page and per finished resource on stdout.
    Lines,
    /// Nothing but errors and the final summary (`--quiet`).
    Quiet,
}

impl Reporter {
    /// Bars when stdout is a terminal, plain lines otherwise, nothing with `quiet`.
    pub fn new(quiet: bool) -> Self {
        if quiet {
            Reporter::Quiet
        } else if std::io::stdout().is_terminal() {
            Reporter::Bars(MultiProgress::with_draw_target(ProgressDrawTarget::stdout()))
        } else {
            Reporter::Lines
        }
    }

    /// Starts reporting on one resource.
    pub fn start(&self, resource: &str, mode: &str) -> Task {
        self.start_as("sync", resource, mode)
    }

    /// Starts reporting on one resource, for a command other than `sync` (its plain lines begin with `verb`).
    pub fn start_as(&self, verb: &'static str, resource: &str, mode: &str) -> Task {
        let bar = match self {
            Reporter::Bars(multi) => {
                let bar = multi.add(ProgressBar::new(0));
                // The template falls back to the default style only if it were malformed, which a constant is not.
                let style = ProgressStyle::with_template(
                    "{prefix:>28} [{bar:30}] {pos}/{len} items, {msg} ({rate}, ETA {eta})",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                // indicatif's own {per_sec} prints four decimals of items per second; whole items read better.
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
                        let _ = write!(out, "{:.0}/s", state.per_sec());
                    },
                )
                .progress_chars("=> ");
                bar.set_style(style);
                bar.set_prefix(resource.to_owned());
                bar.set_message(format!("{mode}, 0 pages"));
                bar.enable_steady_tick(Duration::from_millis(200));
                Some(bar)
            }
            _ => None,
        };
        Task {
            verb,
            lines: matches!(self, Reporter::Lines),
            resource: resource.to_owned(),
            mode: mode.to_owned(),
            bar,
            pages: 0,
            items: 0,
            total: 0,
        }
    }

    /// Prints a line above the bars (or plainly), unless quiet.
    pub fn note(&self, line: &str) {
        match self {
            Reporter::Bars(multi) => {
                let _ = multi.println(line);
            }
            Reporter::Lines => println!("{line}"),
            Reporter::Quiet => {}
        }
    }
}

/// The progress of one resource.
pub struct Task {
    verb: &'static str,
    lines: bool,
    resource: String,
    mode: String,
    bar: Option<ProgressBar>,
    pages: u64,
    items: u64,
    total: u64,
}

impl Task {
    /// A pass (full, changed or deleted) announced `total` items on its first page; the ETA follows from it.
    pub fn expect(&mut self, total: u64) {
        self.total += total;
        if let Some(bar) = &self.bar {
            bar.set_length(self.total);
        }
    }

    /// One page of `items` records stored.
    pub fn page(&mut self, items: u64) {
        self.pages += 1;
        self.items += items;
        if let Some(bar) = &self.bar {
            bar.inc(items);
            bar.set_message(format!("{}, {} pages", self.mode, self.pages));
        }
        if self.lines {
            println!(
                "{} {}: page {}, {}/{} items",
                self.verb, self.resource, self.pages, self.items, self.total
            );
        }
    }

    /// The resource is done; `summary` says what changed.
    pub fn finish(self, summary: &str) {
        if let Some(bar) = &self.bar {
            bar.finish_with_message(format!("{}, {} pages, {summary}", self.mode, self.pages));
        }
        if self.lines {
            println!("{} {}: done, {summary}", self.verb, self.resource);
        }
    }

    /// The resource failed; the bar is left where it stopped.
    pub fn abandon(self) {
        if let Some(bar) = &self.bar {
            bar.abandon_with_message(format!("{}, failed after {} pages", self.mode, self.pages));
        }
    }
}
