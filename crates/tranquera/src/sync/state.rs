//! The state file, `.tranquera-sync.json`: per resource, the instant the next run asks for changes from, and the
//! change feed's cursor.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, FixedOffset, Utc};
use serde::{Deserialize, Serialize};

use super::export;
use crate::say::{say, Say};
use crate::settings::Failure;

/// `.tranquera-sync.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct State {
    /// Per resource, where the next run starts.
    pub(super) resources: BTreeMap<String, ResourceState>,
    /// The change feed's cursor: every list was current up to it when the last whole run finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) feed_cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct ResourceState {
    /// The next run asks for changes at or after this instant: this resource's last successful sync started then,
    /// less the overlap.
    pub(super) since: DateTime<FixedOffset>,
    /// When that sync finished, for people reading the file.
    pub(super) finished_at: DateTime<FixedOffset>,
}

impl State {
    pub(super) fn load(path: &Path) -> Result<Self, Failure> {
        match std::fs::read(path) {
            Ok(bytes) => Ok(serde_json::from_slice(&bytes).map_err(|e| {
                say(Say::BadStateFile {
                    path: &path.display().to_string(),
                    error: &e.to_string(),
                })
            })?),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(error) => Err(error.into()),
        }
    }

    /// Records `resource` as synced: the next run asks for its changes from `since`.
    pub(super) fn synced(&mut self, resource: &str, since: DateTime<FixedOffset>) {
        self.resources.insert(
            resource.to_owned(),
            ResourceState {
                since,
                finished_at: Utc::now().fixed_offset(),
            },
        );
    }

    pub(super) fn save(&self, path: &Path) -> Result<(), Failure> {
        export::replace(path, &serde_json::to_vec_pretty(self)?)
    }
}
