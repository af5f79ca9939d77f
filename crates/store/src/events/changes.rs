//! What a write transaction changed, as its writer records it ([`crate::write::WriteTx`]): one entry per record,
//! its actions within the transaction combined into one, and the tables whose change counters move.

use std::collections::{BTreeMap, BTreeSet};

use super::EventResource;

/// A record's change within one transaction.
#[derive(Debug)]
pub(crate) struct Change {
    /// The record's resource.
    pub resource: &'static EventResource,
    /// `created`, `updated`, `deleted`, or a resource's own (`finished`, `failed`, `disabled`).
    pub action: &'static str,
    /// When, and the record as its writer rendered it; `None` when the commit is to render it.
    pub rendered: Option<(i64, String)>,
}

/// Records of one resource listed, with their action, in a temporary table (`id`, `action`) by a writer that
/// changes too many to hold (an operator's import).
#[derive(Debug)]
pub(crate) struct Listed {
    pub society_id: i64,
    pub resource: &'static EventResource,
    pub table: &'static str,
}

/// Everything a write transaction changed.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// By society, resource and record.
    pub records: BTreeMap<(i64, &'static str, i64), Change>,
    /// Tables changed without an event of their own, by society.
    pub tables: BTreeSet<(i64, &'static str)>,
    pub listed: Vec<Listed>,
    /// Whether the shipped catalogues changed.
    pub reference: bool,
}

/// How two actions on one record within one transaction combine: a deletion wins, then a creation, then anything
/// more specific than an update (`finished`, `disabled`), alphabetically the smaller.
pub(crate) fn combine(before: &'static str, after: &'static str) -> &'static str {
    if before == "deleted" || after == "deleted" {
        "deleted"
    } else {
        before.min(after)
    }
}

impl Changes {
    /// Adds a change of a record; a rendering handed over replaces an earlier one, being newer.
    pub fn record(
        &mut self,
        society_id: i64,
        resource: &'static EventResource,
        id: i64,
        action: &'static str,
        rendered: Option<(i64, String)>,
    ) {
        match self.records.entry((society_id, resource.name, id)) {
            std::collections::btree_map::Entry::Vacant(entry) => {
                entry.insert(Change {
                    resource,
                    action,
                    rendered,
                });
            }
            std::collections::btree_map::Entry::Occupied(mut entry) => {
                let change = entry.get_mut();
                change.action = combine(change.action, action);
                if rendered.is_some() {
                    change.rendered = rendered;
                }
            }
        }
    }

    /// Adds a table changed without an event.
    pub fn count(&mut self, society_id: i64, table: &'static str) {
        self.tables.insert((society_id, table));
    }

    /// Whether nothing was changed.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty() && self.tables.is_empty() && self.listed.is_empty() && !self.reference
    }

    /// Whether every changed record was handed over rendered, and nothing else needs reading.
    pub fn all_rendered(&self) -> bool {
        self.listed.is_empty() && self.records.values().all(|change| change.rendered.is_some())
    }

    /// Every table whose counters move, by society: each changed resource's tables, and those counted alone.
    pub fn counted_tables(&self) -> BTreeSet<(i64, &'static str)> {
        let resources = self
            .records
            .iter()
            .map(|((society_id, _, _), change)| (*society_id, change.resource))
            .chain(self.listed.iter().map(|listed| (listed.society_id, listed.resource)));
        let mut tables = self.tables.clone();
        for (society_id, resource) in resources {
            tables.extend(resource.tables.iter().map(|table| (society_id, *table)));
        }
        tables
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resource of two tables, whose records are never read.
    static ORDER: EventResource = EventResource {
        name: "work_order",
        tables: &["work_orders", "work_order_supplies"],
        sqlite: |_, _, _, _| Box::pin(std::future::ready(Ok(BTreeMap::new()))),
        postgres: |_, _, _, _| Box::pin(std::future::ready(Ok(BTreeMap::new()))),
    };

    #[test]
    fn a_deletion_wins_then_a_creation_then_the_more_specific() {
        assert_eq!(combine("created", "updated"), "created");
        assert_eq!(combine("updated", "created"), "created");
        assert_eq!(combine("created", "deleted"), "deleted");
        assert_eq!(combine("deleted", "updated"), "deleted");
        assert_eq!(combine("updated", "finished"), "finished");
        assert_eq!(combine("disabled", "updated"), "disabled");
        assert_eq!(combine("updated", "updated"), "updated");
    }

    #[test]
    fn a_record_changed_twice_is_one_change_with_the_latest_rendering() {
        let mut changes = Changes::default();
        changes.record(1, &ORDER, 7, "created", None);
        changes.record(1, &ORDER, 7, "updated", Some((5, "{}".into())));
        assert_eq!(changes.records.len(), 1);
        let change = &changes.records[&(1, "work_order", 7)];
        assert_eq!(change.action, "created");
        assert_eq!(change.rendered, Some((5, "{}".to_owned())));
        assert!(changes.all_rendered());
    }

    #[test]
    fn a_record_moves_the_counters_of_every_table_of_its_resource() {
        let mut changes = Changes::default();
        changes.record(1, &ORDER, 7, "updated", None);
        changes.count(2, "users");
        let tables = changes.counted_tables();
        assert!(tables.contains(&(1, "work_orders")));
        assert!(tables.contains(&(1, "work_order_supplies")));
        assert!(tables.contains(&(2, "users")));
        assert!(!changes.all_rendered());
    }
}
