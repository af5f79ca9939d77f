//! How a sync reports progress: a bar per resource on a terminal, plain lines otherwise, nothing when quiet.
//!
//! Plain lines are for logs and CI, where redrawn bars turn into noise; they say the same things a bar shows. Both
//! are in the command's language.

use std::io::IsTerminal as _;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::say::{say, Say};

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
                let template = format!(
                    "{{prefix:>28}} [{{bar:30}}] {{pos}}/{{len}} {}, {{msg}} ({{rate}}, ETA {{eta}})",
                    say(Say::Items)
                );
                let style = ProgressStyle::with_template(&template)
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
                bar.set_message(say(Say::Pages { mode, pages: 0 }));
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
            bar.set_message(say(Say::Pages {
                mode: &self.mode,
                pages: self.pages,
            }));
        }
        if self.lines {
            println!(
                "{}",
                say(Say::PageLine {
                    verb: self.verb,
                    resource: &self.resource,
                    pages: self.pages,
                    items: self.items,
                    total: self.total,
                })
            );
        }
    }

    /// The resource is done; `summary` says what changed.
    pub fn finish(self, summary: &str) {
        if let Some(bar) = &self.bar {
            let pages = say(Say::Pages {
                mode: &self.mode,
                pages: self.pages,
            });
            bar.finish_with_message(format!("{pages}, {summary}"));
        }
        if self.lines {
            println!(
                "{}",
                say(Say::DoneLine {
                    verb: self.verb,
                    resource: &self.resource,
                    summary,
                })
            );
        }
    }

    /// The resource failed; the bar is left where it stopped.
    pub fn abandon(self) {
        if let Some(bar) = &self.bar {
            bar.abandon_with_message(say(Say::FailedAfter {
                mode: &self.mode,
                pages: self.pages,
            }));
        }
    }
}
