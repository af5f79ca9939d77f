//! SQL text built at run time, for both backends: a query under construction ([`Sql`]), sets of ids read by range
//! or by list ([`IdSet`]), several statements sent as one ([`Batch`]), and the dialect each is rendered for. The
//! values they bind are [`crate::arg`]'s, named here too.

pub(crate) use crate::arg::bind_args;
pub use crate::arg::Arg;

/// Ids bound in one `IN (…)` list: far within SQLite's and PostgreSQL's limits on bound parameters.
pub(crate) const IDS_PER_QUERY: usize = 500;

/// The lowest and highest of `ids` when they are a dense run: fewer than twice as many ids between them as `ids`
/// holds. Rows written together have such ids (a page's orders and their lines, a page's plots' establishments).
/// Reading such a run by its range ([`Sql::between`]) walks one stretch of an index instead of looking up each id, and
/// needs no argument per id; the range may also hold rows of a few ids not asked for, which the caller leaves.
fn dense_range(ids: &[i64]) -> Option<(i64, i64)> {
    let (&low, &high) = (ids.iter().min()?, ids.iter().max()?);
    let dense = high.saturating_sub(low) < 2 * i64::try_from(ids.len()).unwrap_or(i64::MAX / 2);
    dense.then_some((low, high))
}

/// How one statement asks for a set of ids, completing a condition `… <column>` ([`IdSet::complete`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum IdSet {
    /// ` BETWEEN low AND high`: a dense run, by its range (see [`dense_range`]).
    Range(i64, i64),
    /// ` IN (…)`: the ids themselves.
    List(Vec<i64>),
}

impl IdSet {
    /// All of `ids` in one set: their range when they are a dense run, else one list. For sets bounded elsewhere, such
    /// as a page's orders.
    pub(crate) fn whole(ids: &[i64]) -> Self {
        match dense_range(ids) {
            Some((low, high)) => Self::Range(low, high),
            None => Self::List(ids.to_vec()),
        }
    }

    /// `ids` in as many sets as their statements need: one range when they are a dense run, else lists of at most
    /// [`IDS_PER_QUERY`] ids. No set at all when `ids` is empty.
    pub(crate) fn chunked(ids: &[i64]) -> Vec<Self> {
        match dense_range(ids) {
            Some((low, high)) => vec![Self::Range(low, high)],
            None => ids
                .chunks(IDS_PER_QUERY)
                .map(|chunk| Self::List(chunk.to_vec()))
                .collect(),
        }
    }

    /// A list with its last id repeated up to a power of two (within [`IDS_PER_QUERY`]), so that lists of many lengths
    /// share a few statements, each of which a connection prepares once. A range is left as it is.
    pub(crate) fn padded(self) -> Self {
        match self {
            Self::List(mut ids) => {
                let width = ids.len().next_power_of_two().min(IDS_PER_QUERY).max(ids.len());
                if let Some(&last) = ids.last() {
                    ids.resize(width, last);
                }
                Self::List(ids)
            }
            range @ Self::Range(..) => range,
        }
    }

    /// Appends this set's half of the condition: ` BETWEEN …` or ` IN (…)`.
    pub(crate) fn complete(&self, sql: &mut Sql) {
        match self {
            Self::Range(low, high) => {
                sql.between(*low, *high);
            }
            Self::List(ids) => {
                sql.push(" IN ").id_list(ids);
            }
        }
    }
}

/// A query under construction: text with `$n` placeholders, and the values they stand for.
#[derive(Debug, Default)]
pub(crate) struct Sql {
    pub text: String,
    pub args: Vec<Arg>,
}

impl Sql {
    /// Appends text.
    pub fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    /// Appends ` BETWEEN <low> AND <high>`, the bounds as arguments.
    pub fn between(&mut self, low: i64, high: i64) -> &mut Self {
        self.push(" BETWEEN ")
            .arg(Arg::Int(low))
            .push(" AND ")
            .arg(Arg::Int(high))
    }

    /// Appends `(…)` with a placeholder for each of `ids`, for an `IN` list; at most [`IDS_PER_QUERY`] of them keeps a
    /// statement within both backends' limits on bound parameters.
    pub fn id_list(&mut self, ids: &[i64]) -> &mut Self {
        self.row(ids.iter().map(|id| Arg::Int(*id)))
    }

    /// Appends `(…)` with a placeholder for each of `args`: one row of a multi-row `VALUES`.
    pub fn row(&mut self, args: impl IntoIterator<Item = Arg>) -> &mut Self {
        self.push("(");
        for (index, arg) in args.into_iter().enumerate() {
            if index > 0 {
                self.push(", ");
            }
            self.arg(arg);
        }
        self.push(")")
    }

    /// Appends `text`, with a placeholder for each of `args` where `text` has a `?`, in order.
    pub fn push_with(&mut self, text: &str, args: &[Arg]) -> &mut Self {
        let mut args = args.iter();
        for (index, piece) in text.split('?').enumerate() {
            if index > 0 {
                if let Some(arg) = args.next() {
                    self.arg(arg.clone());
                }
            }
            self.push(piece);
        }
        self
    }

    /// Appends a placeholder for `arg`.
    pub fn arg(&mut self, arg: Arg) -> &mut Self {
        self.args.push(arg);
        self.text.push('$');
        self.text.push_str(&self.args.len().to_string());
        self
    }
}

/// Arguments of one [`Batch`] statement past which the next statement starts another: far within PostgreSQL's
/// 65,535 parameters a statement.
const BATCH_ARGS: usize = 20_000;

/// Write statements that need nothing from one another's results, sent together: one round trip (and on SQLite one
/// hand-off to sqlx's worker thread) instead of one a statement. On PostgreSQL a statement may read the rows another
/// returns ([`Batch::statement_read_by_next`]). SQLite runs them as `;`-separated statements of one
/// call, binding placeholders numbered across them; PostgreSQL runs them as one statement whose data-modifying `WITH`
/// clauses run together, with foreign keys checked at its end. Since PostgreSQL gives those clauses no order, no
/// two statements of a batch may touch the same row.
#[derive(Debug)]
pub(crate) struct Batch {
    dialect: Dialect,
    /// Statements sent together, with where each statement starts in the text.
    groups: Vec<(Sql, Vec<usize>)>,
    /// Whether the next statement stays in the last query, whatever its size: it reads the last statement's rows.
    joined: bool,
}

impl Batch {
    /// An empty batch for `dialect`.
    pub fn new(dialect: Dialect) -> Self {
        Self {
            dialect,
            groups: Vec::new(),
            joined: false,
        }
    }

    /// Begins the next statement; it is written into the query this answers.
    pub fn statement(&mut self) -> &mut Sql {
        let joined = std::mem::take(&mut self.joined);
        let full = self
            .groups
            .last()
            .is_none_or(|(sql, _)| !joined && sql.args.len() >= BATCH_ARGS);
        if full {
            self.groups.push((Sql::default(), Vec::new()));
        }
        let (sql, starts) = self
            .groups
            .last_mut()
            .expect("a group was just made when there was none");
        if self.dialect == Dialect::Sqlite && !starts.is_empty() {
            sql.push(";\n");
        }
        starts.push(sql.text.len());
        sql
    }

    /// Begins the next statement as [`Self::statement`] does, and keeps the statement after it in the same query;
    /// answers the name by which that statement reads the rows this one returns (PostgreSQL: its `WITH` clause).
    pub fn statement_read_by_next(&mut self) -> (&mut Sql, String) {
        self.statement();
        self.joined = true;
        let (sql, starts) = self
            .groups
            .last_mut()
            .expect("the statement just begun is in the last group");
        let name = format!("batch_{}", starts.len() - 1);
        (sql, name)
    }

    /// Whether the batch is sent as one query, with room in it for one more statement.
    pub fn is_one_query(&self) -> bool {
        match self.groups.as_slice() {
            [] => true,
            [(sql, _)] => sql.args.len() < BATCH_ARGS,
            _ => false,
        }
    }

    /// The queries that run the batch, in order: one unless it is very large.
    pub fn into_queries(self) -> Vec<Sql> {
        let dialect = self.dialect;
        self.groups
            .into_iter()
            .map(|(sql, starts)| match dialect {
                Dialect::Sqlite => sql,
                Dialect::Postgres => {
                    let mut text = String::with_capacity(sql.text.len() + 16 * starts.len());
                    let ends = starts.iter().skip(1).copied().chain([sql.text.len()]);
                    for (index, (start, end)) in starts.iter().zip(ends).enumerate() {
                        let statement = &sql.text[*start..end];
                        if index + 1 == starts.len() {
                            text.push_str(statement);
                        } else {
                            text.push_str(if index == 0 { "WITH " } else { ", " });
                            text.push_str(&format!("batch_{index} AS ({statement})"));
                            if index + 2 == starts.len() {
                                text.push(' ');
                            }
                        }
                    }
                    Sql { text, args: sql.args }
                }
            })
            .collect()
    }
}

/// The SQL dialects we render migrations for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite 3.35 or later.
    Sqlite,
    /// PostgreSQL 13 or later.
    Postgres,
}

/// How a write transaction holds the rows it reads until it commits.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RowLock {
    /// Rows the transaction goes on to change: concurrent writers of them wait.
    Update,
    /// Rows the transaction relies on staying as read (a live parent): changing them waits.
    Share,
}

impl Dialect {
    /// The clause to end a `SELECT` with for `lock`. PostgreSQL's writers run side by side and need it; SQLite's
    /// write transactions (`BEGIN IMMEDIATE`) run one at a time, which already gives it.
    pub(crate) fn lock_rows(self, lock: RowLock) -> &'static str {
        match (self, lock) {
            (Dialect::Sqlite, _) => "",
            (Dialect::Postgres, RowLock::Update) => " FOR UPDATE",
            (Dialect::Postgres, RowLock::Share) => " FOR SHARE",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_inserts(dialect: Dialect) -> Vec<Sql> {
        let mut batch = Batch::new(dialect);
        batch.statement().push("INSERT INTO a (x) VALUES ").row([Arg::Int(1)]);
        batch
            .statement()
            .push("INSERT INTO b (x, y) VALUES ")
            .row([Arg::Int(2), Arg::Int(3)]);
        batch.into_queries()
    }

    #[test]
    fn ids_written_together_are_read_by_their_range() {
        assert_eq!(dense_range(&[5]), Some((5, 5)), "one id is its own range");
        assert_eq!(dense_range(&[3, 4, 6]), Some((3, 6)));
        assert_eq!(dense_range(&[3, 40, 900]), None);
        assert_eq!(dense_range(&[]), None);
    }

    #[test]
    fn a_set_of_ids_is_one_range_or_bounded_lists() {
        assert_eq!(IdSet::whole(&[12, 10, 11]), IdSet::Range(10, 12));
        assert_eq!(IdSet::whole(&[3, 40, 900]), IdSet::List(vec![3, 40, 900]));
        assert_eq!(IdSet::chunked(&[12, 10, 11]), [IdSet::Range(10, 12)]);
        assert!(IdSet::chunked(&[]).is_empty());
        let scattered: Vec<i64> = (0..1_200).map(|n| n * 10).collect();
        let lists = IdSet::chunked(&scattered);
        assert_eq!(lists.len(), scattered.len().div_ceil(IDS_PER_QUERY));
        let mut asked = Vec::new();
        for set in lists {
            match set {
                IdSet::List(ids) => {
                    assert!(ids.len() <= IDS_PER_QUERY);
                    asked.extend(ids);
                }
                IdSet::Range(..) => panic!("scattered ids were read by a range"),
            }
        }
        assert_eq!(asked, scattered, "every id once, in order");

        let mut sql = Sql::default();
        sql.push("x.id");
        IdSet::Range(4, 9).complete(&mut sql);
        IdSet::List(vec![1, 2]).complete(&mut sql);
        assert_eq!(sql.args, [Arg::Int(4), Arg::Int(9), Arg::Int(1), Arg::Int(2)]);
        assert!(sql.text.contains(" BETWEEN ") && sql.text.contains(" IN ("));
    }

    #[test]
    fn padded_lists_come_in_a_few_lengths() {
        let padded = |ids: &[i64]| match IdSet::List(ids.to_vec()).padded() {
            IdSet::List(ids) => ids,
            IdSet::Range(..) => panic!("a list became a range"),
        };
        assert_eq!(padded(&[4, 9, 30]), [4, 9, 30, 30]);
        assert_eq!(padded(&[4, 9, 30, 31]), [4, 9, 30, 31]);
        assert_eq!(padded(&[7]), [7]);
        assert!(padded(&[]).is_empty());
        let many: Vec<i64> = (0..300).map(|id| id * 10).collect();
        assert_eq!(
            padded(&many).len(),
            IDS_PER_QUERY,
            "never past the bound a statement may hold"
        );
        assert_eq!(IdSet::Range(1, 5).padded(), IdSet::Range(1, 5));
    }
    #[test]
    fn a_batch_is_one_query_numbered_across_its_statements() {
        let sqlite = two_inserts(Dialect::Sqlite);
        assert_eq!(sqlite.len(), 1);
        assert_eq!(
            sqlite[0].text,
            "INSERT INTO a (x) VALUES ($1);\nINSERT INTO b (x, y) VALUES ($2, $3)"
        );
        let postgres = two_inserts(Dialect::Postgres);
        assert_eq!(postgres.len(), 1);
        assert_eq!(
            postgres[0].text,
            "WITH batch_0 AS (INSERT INTO a (x) VALUES ($1)) INSERT INTO b (x, y) VALUES ($2, $3)"
        );
        assert_eq!(postgres[0].args, [Arg::Int(1), Arg::Int(2), Arg::Int(3)]);
    }

    #[test]
    fn a_batch_of_one_statement_is_that_statement_and_an_empty_one_is_nothing() {
        for dialect in [Dialect::Sqlite, Dialect::Postgres] {
            let mut batch = Batch::new(dialect);
            batch.statement().push("DELETE FROM a WHERE x = ").arg(Arg::Int(1));
            let queries = batch.into_queries();
            assert_eq!(queries.len(), 1);
            assert_eq!(queries[0].text, "DELETE FROM a WHERE x = $1");
            assert!(Batch::new(dialect).into_queries().is_empty());
        }
    }

    #[test]
    fn a_batch_past_its_arguments_starts_another_query_numbered_afresh() {
        let mut batch = Batch::new(Dialect::Postgres);
        for _ in 0..3 {
            batch
                .statement()
                .push("INSERT INTO a (x) VALUES ")
                .row(std::iter::repeat_n(Arg::Int(0), BATCH_ARGS / 2));
        }
        let queries = batch.into_queries();
        assert_eq!(queries.len(), 2);
        assert_eq!(queries[0].args.len(), BATCH_ARGS);
        assert!(queries[0].text.starts_with("WITH batch_0 AS (INSERT"));
        assert!(queries[1].text.starts_with("INSERT INTO a (x) VALUES ($1, "));
        assert_eq!(queries[1].args.len(), BATCH_ARGS / 2);
    }

    #[test]
    fn a_statement_reads_the_rows_of_the_one_before_it_by_name_in_the_same_query() {
        let mut batch = Batch::new(Dialect::Postgres);
        batch
            .statement()
            .push("INSERT INTO a (x) VALUES ")
            .row(std::iter::repeat_n(Arg::Int(0), BATCH_ARGS));
        let (sql, name) = batch.statement_read_by_next();
        sql.push("UPDATE b SET x = x + 1 RETURNING x");
        batch
            .statement()
            .push(&format!("INSERT INTO c (x) SELECT x FROM {name}"));
        let queries = batch.into_queries();
        assert_eq!(queries.len(), 2, "a full query, then the two together");
        assert_eq!(
            queries[1].text,
            "WITH batch_0 AS (UPDATE b SET x = x + 1 RETURNING x) INSERT INTO c (x) SELECT x FROM batch_0"
        );
    }
}
