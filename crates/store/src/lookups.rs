//! What a write must know from the database before it writes, asked together: for each kind of reference, which of
//! the ids sent are live records the caller may refer to; any other question a write asks (is an external id taken?);
//! ids for the rows it is about to insert. Every write asks through here, so a reference is checked one way
//! everywhere, and the row lock a reference takes is chosen in one place ([`lock_for`]).
//!
//! While their ids fit [`IDS_PER_QUERY`], one `UNION ALL` statement answers every lookup, so a write costs one round
//! trip for them however many kinds of reference it makes.
//!
//! A body already refused for its own rules asks the same lookups without writing ([`Lookups::reading`],
//! [`Store::ask_reading`]): on a reader, locking nothing and reserving no ids, so its refusal also names the records it
//! refers to that do not exist.

use std::collections::BTreeSet;

use crate::db::with_reader;
use crate::sql::{Arg, Dialect, RowLock, Sql, IDS_PER_QUERY};
use crate::{Store, StoreError};

/// Tables whose records the API deletes only when nothing live depends on them (see `Store::delete_logically`).
/// A write that makes a record depend on one of theirs locks that record to share until it commits: a deletion then
/// waits for the write and counts what it made, or the write waits for the deletion and finds the record gone.
const DELETED_WITH_DEPENDANTS: [&str; 2] = ["establishments", "plots"];

/// The row lock a reference to a record of `table` takes.
pub(crate) fn lock_for(table: &str) -> Option<RowLock> {
    DELETED_WITH_DEPENDANTS.contains(&table).then_some(RowLock::Share)
}

/// Whose records a reference may name.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Owner<'a> {
    /// The caller's society's.
    Society(i64),
    /// A per-country catalogue's, for the caller's country.
    Country(&'a str),
    /// A global catalogue's.
    Everyone,
}

/// The lookups of one write.
pub(crate) struct Lookups {
    dialect: Dialect,
    kinds: Vec<Lookup>,
    /// Asked outside a write: no lookup locks a row, and no ids are reserved.
    reading: bool,
}

struct Lookup {
    /// What the lookup answers and where from: `{value} FROM {table} WHERE {condition}`, with a `?` for each of
    /// `fixed`.
    select: String,
    fixed: Vec<Arg>,
    /// The ids asked about (`AND id IN (…)`), or none for a lookup whose condition says it all.
    ids: Option<Vec<i64>>,
    /// The lock its rows take until the write commits.
    lock: Option<RowLock>,
}

/// Which of the lookups of a [`Lookups`] is meant.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kind(usize);

/// Ids for the new rows of a table, asked for with the lookups (see [`Lookups::reserve`]).
pub(crate) struct Reservation {
    kind: Option<Kind>,
    count: usize,
    /// The lookup answers the first id, and the rest follow it.
    consecutive: bool,
}

impl Lookups {
    /// No lookups yet, for a database of `dialect`.
    pub fn new(dialect: Dialect) -> Self {
        Self {
            dialect,
            kinds: Vec::new(),
            reading: false,
        }
    }

    /// No lookups yet, to be asked outside a write ([`Store::ask_reading`]): they lock nothing, and a reservation
    /// reserves nothing.
    pub fn reading(dialect: Dialect) -> Self {
        Self {
            reading: true,
            ..Self::new(dialect)
        }
    }

    /// Asks which of `ids` are live records of `table` that `owner` may refer to.
    pub fn live(&mut self, table: &'static str, owner: Owner<'_>, ids: impl IntoIterator<Item = i64>) -> Kind {
        let (condition, fixed) = match owner {
            Owner::Society(society_id) => ("deleted_at IS NULL AND society_id = ?", vec![Arg::Int(society_id)]),
            Owner::Country(country) => (
                "deleted_at IS NULL AND country = ?",
                vec![Arg::Text(country.to_owned())],
            ),
            Owner::Everyone => ("deleted_at IS NULL", Vec::new()),
        };
        self.push(Lookup {
            select: format!("id FROM {table} WHERE {condition}"),
            fixed,
            ids: Some(ids.into_iter().collect::<BTreeSet<_>>().into_iter().collect()),
            lock: lock_for(table),
        })
    }

    /// Asks which of `ids` `table` has under `condition` (a `?` for each of `fixed`), live or not.
    pub fn rows(
        &mut self,
        table: &'static str,
        condition: &str,
        fixed: &[Arg],
        ids: impl Iterator<Item = i64>,
    ) -> Kind {
        self.push(Lookup {
            select: format!("id FROM {table} WHERE {condition}"),
            fixed: fixed.to_vec(),
            ids: Some(ids.collect::<BTreeSet<_>>().into_iter().collect()),
            lock: None,
        })
    }

    /// Asks for whatever `select` (`{value} FROM …`, a `?` for each of `fixed`) answers.
    pub fn query(&mut self, select: String, fixed: &[Arg]) -> Kind {
        self.push(Lookup {
            select,
            fixed: fixed.to_vec(),
            ids: None,
            lock: None,
        })
    }

    /// Asks for ids for `count` new rows of `table`, so that rows referring to them can be written along with them.
    /// PostgreSQL draws them from the table's identity sequence, by the name PostgreSQL gave it (`{table}_id_seq`),
    /// which the statement's plan resolves once: `pg_get_serial_sequence` searched `pg_depend` on every id drawn, and
    /// that was a large part of a work-order create's lookups (docs/performance.md). SQLite's writer holds the
    /// database's lock from `BEGIN IMMEDIATE` on, so the ids after the largest are free, and they are what SQLite
    /// would have picked.
    pub fn reserve(&mut self, table: &'static str, count: usize) -> Reservation {
        let (select, consecutive) = match self.dialect {
            Dialect::Sqlite => (format!("COALESCE(MAX(id), 0) + 1 FROM {table}"), true),
            Dialect::Postgres => (
                format!("nextval('{table}_id_seq') FROM generate_series(1, {count})"),
                false,
            ),
        };
        if self.reading {
            return Reservation {
                kind: None,
                count: 0,
                consecutive,
            };
        }
        Reservation {
            kind: (count > 0).then(|| self.query(select, &[])),
            count,
            consecutive,
        }
    }

    fn push(&mut self, mut lookup: Lookup) -> Kind {
        if self.reading {
            lookup.lock = None;
        }
        self.kinds.push(lookup);
        Kind(self.kinds.len() - 1)
    }

    /// The statements that answer every lookup, each row `(kind, value)`; none when nothing is asked.
    pub fn statements(&self) -> Vec<Sql> {
        let mut statements = Vec::new();
        let mut current = Sql::default();
        let mut arms = 0;
        let mut ids_in_current = 0;
        for (kind, lookup) in self.kinds.iter().enumerate() {
            let chunks: Vec<Option<&[i64]>> = match &lookup.ids {
                Some(ids) => ids.chunks(IDS_PER_QUERY).map(Some).collect(),
                None => vec![None],
            };
            for chunk in chunks {
                let size = chunk.map_or(0, <[i64]>::len);
                if arms > 0 && ids_in_current + size > IDS_PER_QUERY {
                    statements.push(std::mem::take(&mut current));
                    arms = 0;
                    ids_in_current = 0;
                }
                if arms > 0 {
                    current.push(" UNION ALL ");
                }
                current.push(&format!("SELECT CAST({kind} AS BIGINT) AS kind, "));
                // A `UNION` cannot lock rows, an arm's own sub-select can.
                let lock = lookup
                    .lock
                    .map(|lock| self.dialect.lock_rows(lock))
                    .filter(|lock| !lock.is_empty());
                if lock.is_some() {
                    current.push("id FROM (SELECT ");
                }
                current.push_with(&lookup.select, &lookup.fixed);
                if let Some(chunk) = chunk {
                    current.push(" AND id IN ").id_list(chunk);
                }
                if let Some(lock) = lock {
                    current.push(lock).push(") locked");
                }
                arms += 1;
                ids_in_current += size;
            }
        }
        if arms > 0 {
            statements.push(current);
        }
        statements
    }

    /// Sorts the rows the statements answered by kind.
    pub fn found(&self, rows: impl IntoIterator<Item = (i64, i64)>) -> Found {
        let mut found = vec![BTreeSet::new(); self.kinds.len()];
        for (kind, id) in rows {
            if let Some(ids) = usize::try_from(kind).ok().and_then(|kind| found.get_mut(kind)) {
                ids.insert(id);
            }
        }
        Found(found)
    }
}

/// Runs the statements of a [`Lookups`] on `$tx` (a transaction of either backend) and answers what they found.
macro_rules! ask {
    ($lookups:expr, $tx:expr) => {{
        let mut rows: Vec<(i64, i64)> = Vec::new();
        for sql in $lookups.statements() {
            let query = $crate::sql::bind_args!(sqlx::query_as::<_, (i64, i64)>(&sql.text), &sql.args);
            rows.extend(query.fetch_all(&mut *$tx).await?);
        }
        $lookups.found(rows)
    }};
}
pub(crate) use ask;

impl Store {
    /// Answers `lookups` (made with [`Lookups::reading`]) on a reader, outside any transaction: what a body refused
    /// for its own rules also gets wrong about the records it names. It reads only and locks nothing, so it neither
    /// waits for writes nor holds them up.
    pub(crate) async fn ask_reading(&self, lookups: &Lookups) -> Result<Found, StoreError> {
        Ok(with_reader!(&self.db, pool => {
            let mut connection = pool.acquire().await?;
            ask!(lookups, connection)
        }))
    }
}

/// The ids [`Lookups`] found, by kind.
pub(crate) struct Found(Vec<BTreeSet<i64>>);

impl Found {
    /// What lookup `kind` found.
    pub fn of(&self, kind: Kind) -> &BTreeSet<i64> {
        &self.0[kind.0]
    }

    /// What lookup `kind` found, taken out of the answer, which then holds nothing for `kind`.
    pub fn take(&mut self, kind: Kind) -> BTreeSet<i64> {
        std::mem::take(&mut self.0[kind.0])
    }

    /// Whether lookup `kind` found `id`.
    pub fn has(&self, kind: Kind, id: i64) -> bool {
        self.of(kind).contains(&id)
    }

    /// The ids reserved for new rows, in increasing order.
    pub fn reserved(&self, reservation: &Reservation) -> Result<Vec<i64>, StoreError> {
        let answered = reservation.kind.map(|kind| self.of(kind));
        let ids: Vec<i64> = match (answered, reservation.consecutive) {
            (None, _) => Vec::new(),
            (Some(first), true) => first
                .first()
                .map(|first| (*first..).take(reservation.count).collect())
                .unwrap_or_default(),
            (Some(ids), false) => ids.iter().copied().collect(),
        };
        if ids.len() == reservation.count {
            Ok(ids)
        } else {
            Err(StoreError::Database(
                format!("{} ids reserved for {} new rows", ids.len(), reservation.count).into(),
            ))
        }
    }

    /// Each line's id: its own when it was sent with one, else the next of those `reservation` reserved.
    pub fn line_ids(
        &self,
        reservation: &Reservation,
        own_ids: impl Iterator<Item = Option<i64>>,
    ) -> Result<Vec<i64>, StoreError> {
        let mut reserved = self.reserved(reservation)?.into_iter();
        Ok(own_ids.filter_map(|own| own.or_else(|| reserved.next())).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_share_one_statement_while_their_ids_fit() {
        let mut lookups = Lookups::new(Dialect::Sqlite);
        let machines = lookups.live("machines", Owner::Society(7), [3, 1, 3]);
        let vouchers = lookups.live("voucher_types", Owner::Everyone, [9]);
        lookups.live("contractors", Owner::Society(7), []);
        let statements = lookups.statements();
        assert_eq!(statements.len(), 1);
        assert_eq!(
            statements[0].text,
            "SELECT CAST(0 AS BIGINT) AS kind, id FROM machines WHERE deleted_at IS NULL AND society_id = $1 AND id IN \
             ($2, $3) UNION ALL SELECT CAST(1 AS BIGINT) AS kind, id FROM voucher_types WHERE deleted_at IS NULL AND id \
             IN ($4)"
        );
        assert_eq!(statements[0].args, [Arg::Int(7), Arg::Int(1), Arg::Int(3), Arg::Int(9)]);
        let found = lookups.found([(0, 3), (1, 9), (5, 1)]);
        assert_eq!(found.of(machines), &BTreeSet::from([3]));
        assert!(found.has(vouchers, 9));
        let mut found = found;
        assert_eq!(found.take(machines), BTreeSet::from([3]));
        assert!(found.of(machines).is_empty(), "what is taken is no longer there");
        assert!(found.has(vouchers, 9), "other kinds keep theirs");
    }

    #[test]
    fn lookups_beyond_one_statements_worth_are_split_and_none_are_lost() {
        let mut lookups = Lookups::new(Dialect::Postgres);
        lookups.live("machines", Owner::Everyone, 0..(IDS_PER_QUERY as i64 + 10));
        lookups.live("contractors", Owner::Everyone, 0..5);
        let statements = lookups.statements();
        assert_eq!(statements.len(), 2);
        let bound: usize = statements.iter().map(|sql| sql.args.len()).sum();
        assert_eq!(bound, IDS_PER_QUERY + 15);
        assert!(statements.iter().all(|sql| sql.args.len() <= IDS_PER_QUERY));
        assert!(Lookups::new(Dialect::Sqlite).statements().is_empty());
    }

    #[test]
    fn a_reference_to_a_record_deleted_with_dependants_locks_it_on_postgres() {
        for (dialect, locked) in [(Dialect::Sqlite, false), (Dialect::Postgres, true)] {
            let mut lookups = Lookups::new(dialect);
            lookups.live("plots", Owner::Society(7), [4]);
            lookups.live("farmers", Owner::Society(7), [5]);
            let text = &lookups.statements()[0].text;
            assert_eq!(text.contains("FOR SHARE) locked"), locked, "{text}");
            assert_eq!(
                text.matches("FOR SHARE").count(),
                usize::from(locked),
                "only plots lock: {text}"
            );
        }
    }

    #[test]
    fn lookups_asked_outside_a_write_lock_nothing_and_reserve_no_ids() {
        let mut lookups = Lookups::reading(Dialect::Postgres);
        let plots = lookups.live("plots", Owner::Society(7), [4]);
        let orders = lookups.reserve("work_orders", 1);
        let statements = lookups.statements();
        assert_eq!(statements.len(), 1);
        assert!(!statements[0].text.contains("FOR SHARE"), "{}", statements[0].text);
        assert!(!statements[0].text.contains("nextval"), "{}", statements[0].text);
        assert!(lookups.found([(0, 4)]).has(plots, 4));
        assert!(orders.kind.is_none());
    }

    #[test]
    fn conditions_and_reservations_are_asked_with_the_id_lookups() {
        for dialect in [Dialect::Sqlite, Dialect::Postgres] {
            let mut lookups = Lookups::new(dialect);
            let machines = lookups.live("machines", Owner::Society(7), [3]);
            let duplicate = lookups.query("id FROM orders WHERE name = ?".to_owned(), &[Arg::Text("x".to_owned())]);
            let orders = lookups.reserve("orders", 1);
            let lines = lookups.reserve("lines", 3);
            let none = lookups.reserve("lines", 0);
            assert!(none.kind.is_none(), "nothing to ask for no rows");
            let statements = lookups.statements();
            assert_eq!(statements.len(), 1);
            assert_eq!(
                statements[0].text.matches("UNION ALL").count(),
                3,
                "{}",
                statements[0].text
            );
            assert!(statements[0]
                .text
                .contains("SELECT CAST(1 AS BIGINT) AS kind, id FROM orders WHERE name = $3"));
            let rows = match dialect {
                // SQLite answers the first free id of each table.
                Dialect::Sqlite => vec![(0, 3), (1, 12), (2, 51), (3, 900)],
                Dialect::Postgres => vec![(0, 3), (1, 12), (2, 51), (3, 905), (3, 900), (3, 903)],
            };
            let found = lookups.found(rows);
            assert_eq!(found.of(machines), &BTreeSet::from([3]));
            assert_eq!(found.of(duplicate), &BTreeSet::from([12]));
            assert_eq!(found.reserved(&orders).expect("one id"), [51]);
            let expected = match dialect {
                Dialect::Sqlite => [900, 901, 902],
                Dialect::Postgres => [900, 903, 905],
            };
            assert_eq!(found.reserved(&lines).expect("three ids"), expected);
            assert!(found.reserved(&none).expect("no ids").is_empty());
            assert!(
                lookups.found([(0, 3)]).reserved(&lines).is_err(),
                "a reservation unanswered is an error"
            );
        }
    }
}
