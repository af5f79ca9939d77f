//! A folder synced while some lists had other names ([`RENAMED`]): each former name's table in the mirror, entry in
//! the state file and JSONL or CSV file take the list's present name, so the folder carries on with incremental runs
//! instead of starting afresh, and the user is told once per list.

use std::path::Path;

use super::mirror::Mirror;
use super::progress::Reporter;
use super::resources::RENAMED;
use super::state::State;
use crate::say::{say, Say};
use crate::settings::Failure;

/// Renames what `out` holds under former names; answers whether anything was renamed (the state then changed).
pub(super) async fn former_names(
    out: &Path,
    mirror: &Mirror,
    state: &mut State,
    reporter: &Reporter,
) -> Result<bool, Failure> {
    let mut any = false;
    for (old, new) in RENAMED {
        let mut renamed = mirror.rename(old, new).await?;
        if let Some(entry) = state.resources.remove(*old) {
            renamed = true;
            state.resources.entry((*new).to_owned()).or_insert(entry);
        }
        for extension in ["jsonl", "csv"] {
            let former = out.join(format!("{old}.{extension}"));
            if !former.exists() {
                continue;
            }
            renamed = true;
            let present = out.join(format!("{new}.{extension}"));
            if present.exists() {
                // Written by a later run under the present name: the former file is the older one.
                std::fs::remove_file(&former)?;
            } else {
                std::fs::rename(&former, &present)?;
            }
        }
        if renamed {
            reporter.note(&say(Say::RenamedInFolder { old, new }));
            any = true;
        }
    }
    Ok(any)
}
