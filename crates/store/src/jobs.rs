//! The job table: background work that outlives any one request or process.
//!
//! A job is claimed by one worker at a time under a lease (`locked_by`, `locked_until`). A claim first reads, over
//! every society and without locks, which societies have a job to claim, those with the fewest jobs running first, so
//! that one society's queue does not hold back another's; then it claims in one of them with a statement that names
//! the society, so that on Citus it runs on the one worker holding it. PostgreSQL claims with
//! `FOR UPDATE SKIP LOCKED`, so several server processes never take the same job, and a chunk keeps the job's row
//! locked until it commits, so a lease that runs out mid-chunk does not let a second worker redo its rows. The work is
//! done in chunks, each chunk and the job's progress committed in one transaction, so a worker killed mid-job loses at
//! most an uncommitted chunk: when its lease runs out another worker (or the same process, restarted) resumes at the
//! first row not yet processed.

use std::time::Duration;

use domain::import::Cell;
use domain::jobs::{
    report_lang, unknown_kind, Found, JobStatus, NewCampaign, YieldUpdate, CAMPAIGN_IMPORT, UPDATE_OBJECTIVE_YIELD,
};
use domain::{Lang, Refusal};
use serde_json::{json, Value};

use crate::db::with_writer;
use crate::resources::events::{CAMPAIGN, JOB};
use crate::sql::{Arg, Dialect, RowLock, Sql};
use crate::write::{BeginWrite, WriteTx};
use crate::{now_millis, Scope, Store, StoreError};

/// Claims of a job after which it is given up as failed.
pub const MAX_ATTEMPTS: i64 = 5;

/// Societies one claim looks at, in order, until one still has a job no other process took meanwhile.
const SOCIETIES_PER_CLAIM: i64 = 8;

crate::row_by_position! {
    /// A society with a job to claim.
    struct WaitingSociety {
        society_id: i64,
    }
}

/// A job a worker holds.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ClaimedJob {
    /// The job's society.
    pub society_id: i64,
    /// The job.
    pub id: i64,
    /// What it does.
    pub kind: String,
}

/// What a chunk of work left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Rows remain.
    More,
    /// Every row is handled.
    Finished,
    /// Another worker holds the job now (this one's lease ran out).
    LostLease,
}

#[derive(sqlx::FromRow)]
struct JobState {
    input: String,
    total_items: i64,
    processed_items: i64,
    failed_items: i64,
    result: Option<String>,
    locked_by: Option<String>,
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// Puts a refused row into words, in the language the job recorded: the server's, which the store does not speak.
pub type RowWords = fn(&Refusal, Lang) -> String;

/// A refused row as the job's `result` lists it.
fn refused(row: usize, id: Option<i64>, reason: String) -> Value {
    json!({ "row": row, "campaign_id": id, "reason": reason })
}

/// A field of a job row, as the domain reads it.
fn cell<'a>(row: &'a Value, field: &str) -> Cell<'a> {
    match row.get(field) {
        None | Some(Value::Null) => Cell::Empty,
        Some(Value::Bool(flag)) => Cell::Bool(*flag),
        Some(Value::Number(number)) => match (number.as_i64(), number.as_f64()) {
            (Some(whole), _) => Cell::Integer(whole),
            (None, Some(fraction)) => Cell::Number(fraction),
            (None, None) => Cell::Nested,
        },
        Some(Value::String(text)) => Cell::Text(text),
        Some(Value::Array(_) | Value::Object(_)) => Cell::Nested,
    }
}

impl Store {
    /// Queues a job of `kind` for the caller's society; `input` is its JSON input, `total_items` its row count.
    pub async fn enqueue_job(
        &self,
        scope: &Scope,
        kind: &str,
        input: &str,
        total_items: i64,
    ) -> Result<i64, StoreError> {
        let now = now_millis();
        let id: i64 = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let id = sqlx::query_scalar(
                "INSERT INTO jobs (society_id, kind, status, input, total_items, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id",
            )
            .bind(scope.society_id())
            .bind(kind)
            .bind(JobStatus::Pending.as_str())
            .bind(input)
            .bind(total_items)
            .bind(now)
            .fetch_one(&mut *tx)
            .await?;
            tx.changed(scope.society_id(), &JOB, [id], "created");
            tx.commit().await?;
            id
        });
        Ok(id)
    }

    /// Claims a job for `worker`: of the societies with a job waiting, or whose worker's lease ran out, those with
    /// the fewest jobs running come first, then the one whose job has waited longest; in that society, its oldest
    /// such job. Gives up on jobs claimed [`MAX_ATTEMPTS`] times.
    pub async fn claim_job(&self, worker: &str, lease: Duration) -> Result<Option<ClaimedJob>, StoreError> {
        let now = now_millis();
        // One statement over every society, which cannot name one and locks nothing; the claim that follows names its
        // society, so on Citus it runs on the one worker that holds it. A society is passed over when another process
        // took its last waiting job in between.
        let sweep = Sql {
            text: "/* all societies: which societies have a job to claim, the least busy and longest waiting first; \
                   the job worker's background sweep, without locks */ \
                   SELECT society_id FROM jobs WHERE status IN ('pending', 'running') GROUP BY society_id \
                   HAVING MIN(CASE WHEN status = 'pending' OR locked_until < $1 THEN created_at END) IS NOT NULL \
                   ORDER BY SUM(CASE WHEN status = 'running' AND locked_until >= $1 THEN 1 ELSE 0 END), \
                   MIN(CASE WHEN status = 'pending' OR locked_until < $1 THEN created_at END), society_id LIMIT $2"
                .to_owned(),
            args: vec![Arg::Int(now), Arg::Int(SOCIETIES_PER_CLAIM)],
        };
        let waiting: Vec<WaitingSociety> = self.lookup_rows(&sweep).await?;
        for society in waiting {
            if let Some(job) = self.claim_job_of(society.society_id, worker, lease, now).await? {
                return Ok(Some(job));
            }
        }
        Ok(None)
    }

    /// Claims the oldest job of society `society_id` that is waiting, or whose worker's lease ran out, for `worker`;
    /// gives up on the society's jobs claimed [`MAX_ATTEMPTS`] times.
    async fn claim_job_of(
        &self,
        society_id: i64,
        worker: &str,
        lease: Duration,
        now: i64,
    ) -> Result<Option<ClaimedJob>, StoreError> {
        let lock = match self.db.dialect() {
            // Several processes may claim at once: each skips the rows another is claiming. The society is named, so
            // the lock is taken on one shard, which Citus allows.
            Dialect::Postgres => " FOR UPDATE SKIP LOCKED",
            // SQLite serialises writers, so the sub-select and the update cannot interleave with another claim.
            Dialect::Sqlite => "",
        };
        let claimable = "(status = 'pending' OR (status = 'running' AND locked_until < $3))";
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let given_up: Vec<i64> = sqlx::query_scalar(&format!(
                "UPDATE jobs SET status = 'failed', error = $1, finished_at = $3, updated_at = $3, locked_by = NULL \
                 WHERE society_id = $4 AND {claimable} AND attempts >= $2 RETURNING id"
            ))
            .bind(format!("gave up after {MAX_ATTEMPTS} attempts"))
            .bind(MAX_ATTEMPTS)
            .bind(now)
            .bind(society_id)
            .fetch_all(&mut *tx)
            .await?;
            if !given_up.is_empty() {
                tx.changed(society_id, &JOB, given_up, "failed");
            }
            let claimed: Option<(i64, String, i64)> = sqlx::query_as(&format!(
                "UPDATE jobs SET status = 'running', locked_by = $1, locked_until = $2, attempts = attempts + 1, \
                 started_at = COALESCE(started_at, $3), updated_at = $3 \
                 WHERE society_id = $4 AND id = (SELECT id FROM jobs WHERE society_id = $4 AND {claimable} \
                 ORDER BY created_at, id LIMIT 1{lock}) RETURNING id, kind, attempts"
            ))
            .bind(worker)
            .bind(now + millis(lease))
            .bind(now)
            .bind(society_id)
            .fetch_optional(&mut *tx)
            .await?;
            let claimed = claimed.map(|(id, kind, attempts)| {
                // A first claim starts a pending job, which is news; a claim after a lease ran out only moves the lease.
                if attempts == 1 {
                    tx.changed(society_id, &JOB, [id], "updated");
                } else {
                    tx.counted(society_id, "jobs");
                }
                ClaimedJob { society_id, id, kind }
            });
            tx.commit().await?;
            Ok(claimed)
        })
    }

    /// Handles up to `chunk` more rows of a claimed job in one transaction, with the job's progress, and extends the
    /// lease; `words` says why a row was refused.
    pub async fn work_job(
        &self,
        job: &ClaimedJob,
        worker: &str,
        chunk: usize,
        lease: Duration,
        words: RowWords,
    ) -> Result<Progress, StoreError> {
        let now = now_millis();
        // The job's row stays locked until the chunk commits, so a claim (which skips locked rows) cannot hand the job
        // to another worker while this one's lease runs out in the middle of a chunk.
        let lock = self.db.dialect().lock_rows(RowLock::Update);
        let share = self.db.dialect().lock_rows(RowLock::Share);
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let state: Option<JobState> = sqlx::query_as(&format!(
                "SELECT input, total_items, processed_items, failed_items, result, locked_by FROM jobs \
                 WHERE society_id = $1 AND id = $2 AND status = 'running'{lock}"
            ))
            .bind(job.society_id)
            .bind(job.id)
            .fetch_optional(&mut *tx)
            .await?;
            let Some(state) = state.filter(|s| s.locked_by.as_deref() == Some(worker)) else {
                return Ok(Progress::LostLease);
            };
            let mut chunk = Chunk::of(job, &state, chunk);
            for index in chunk.start..chunk.end {
                let row_number = index + 1;
                let outcome = tx.work_row(job, &chunk.rows[index], row_number, share, now).await?;
                chunk.record(&job.kind, row_number, outcome, words);
            }
            let processed = i64::try_from(chunk.end).unwrap_or(i64::MAX);
            let finished = chunk.end >= chunk.rows.len() || processed >= state.total_items;
            let status = if finished { JobStatus::Finished } else { JobStatus::Running };
            sqlx::query(
                "UPDATE jobs SET processed_items = $3, failed_items = $4, result = $5, status = $6, updated_at = $7, \
                 locked_until = $8, finished_at = $9, locked_by = $10 WHERE society_id = $1 AND id = $2",
            )
            .bind(job.society_id)
            .bind(job.id)
            .bind(processed)
            .bind(state.failed_items + chunk.failed)
            .bind(chunk.result.to_string())
            .bind(status.as_str())
            .bind(now)
            .bind(now + millis(lease))
            .bind(finished.then_some(now))
            .bind((!finished).then_some(worker))
            .execute(&mut *tx)
            .await?;
            tx.changed(job.society_id, &JOB, [job.id], if finished { "finished" } else { "updated" });
            tx.commit().await?;
            Ok(if finished { Progress::Finished } else { Progress::More })
        })
    }
}

/// What became of one row of a job: what the job's result lists for it, or the id to name with why it was refused.
type RowOutcome = Result<Value, (Option<i64>, Refusal)>;

/// The rows of a job a chunk works through, and the job's result as the chunk leaves it.
struct Chunk {
    /// Every row of the job.
    rows: Vec<Value>,
    /// The language the job's refusals are put in.
    lang: Lang,
    /// The first row of the chunk, by index.
    start: usize,
    /// The row after the chunk's last, by index.
    end: usize,
    /// The job's result: its rows done and refused so far.
    result: Value,
    /// The rows this chunk refused.
    failed: i64,
}

impl Chunk {
    /// The next `chunk` rows of `job`, from the first not processed yet, as `state` records it.
    fn of(job: &ClaimedJob, state: &JobState, chunk: usize) -> Self {
        let input: Value = serde_json::from_str(&state.input).unwrap_or(Value::Null);
        let rows = input["campaigns"].as_array().cloned().unwrap_or_default();
        let lang = report_lang(input["lang"].as_str());
        let start = usize::try_from(state.processed_items)
            .unwrap_or(usize::MAX)
            .min(rows.len());
        let end = start.saturating_add(chunk).min(rows.len());
        let result: Value = state
            .result
            .as_deref()
            .and_then(|r| serde_json::from_str(r).ok())
            .unwrap_or_else(|| {
                if job.kind == CAMPAIGN_IMPORT {
                    json!({ "created": [], "refused": [] })
                } else {
                    json!({ "updated": 0, "refused": [] })
                }
            });
        Self {
            rows,
            lang,
            start,
            end,
            result,
            failed: 0,
        }
    }

    /// Adds what became of row `row_number` of a job of `kind` to the result.
    fn record(&mut self, kind: &str, row_number: usize, outcome: RowOutcome, words: RowWords) {
        let result = &mut self.result;
        match outcome {
            Ok(done) => {
                if kind == CAMPAIGN_IMPORT {
                    if let Some(created) = result["created"].as_array_mut() {
                        created.push(done);
                    }
                } else {
                    result["updated"] = json!(result["updated"].as_i64().unwrap_or(0) + 1);
                }
            }
            Err((id, refusal)) => {
                self.failed += 1;
                if let Some(list) = result["refused"].as_array_mut() {
                    list.push(refused(row_number, id, words(&refusal, self.lang)));
                }
            }
        }
    }
}

/// The work of a job's rows, one method per kind of job, on a write transaction of either backend.
trait JobRows {
    /// Works row `row_number` of `job`, `raw` as the job's input holds it, in the chunk's transaction; `share` ends
    /// the `SELECT` of a row the write relies on staying live.
    fn work_row(
        &mut self,
        job: &ClaimedJob,
        raw: &Value,
        row_number: usize,
        share: &str,
        now: i64,
    ) -> impl std::future::Future<Output = Result<RowOutcome, sqlx::Error>> + Send;

    /// A row of [`UPDATE_OBJECTIVE_YIELD`]: the campaign's objective yield, set.
    fn update_yield(
        &mut self,
        society_id: i64,
        row: YieldUpdate,
        now: i64,
    ) -> impl std::future::Future<Output = Result<RowOutcome, sqlx::Error>> + Send;

    /// A row of [`CAMPAIGN_IMPORT`]: a campaign, created when the records it names are live and its code is free.
    fn import_campaign(
        &mut self,
        society_id: i64,
        row: NewCampaign,
        row_number: usize,
        share: &str,
        now: i64,
    ) -> impl std::future::Future<Output = Result<RowOutcome, sqlx::Error>> + Send;
}

/// Implements [`JobRows`] for the write transaction of backend `$db`.
macro_rules! job_rows {
    ($db:ty) => {
        impl JobRows for WriteTx<'static, $db> {
            async fn work_row(
                &mut self,
                job: &ClaimedJob,
                raw: &Value,
                row_number: usize,
                share: &str,
                now: i64,
            ) -> Result<RowOutcome, sqlx::Error> {
                let field = |name: &str| cell(raw, name);
                Ok(match job.kind.as_str() {
                    UPDATE_OBJECTIVE_YIELD => match YieldUpdate::read(field) {
                        // The id sent, when it is one, so that the row is found by it too.
                        Err(refusal) => Err((raw.get("campaign_id").and_then(Value::as_i64), refusal)),
                        Ok(row) => self.update_yield(job.society_id, row, now).await?,
                    },
                    CAMPAIGN_IMPORT => match NewCampaign::read(field) {
                        Err(refusal) => Err((None, refusal)),
                        Ok(row) => self.import_campaign(job.society_id, row, row_number, share, now).await?,
                    },
                    _ => Err((None, unknown_kind())),
                })
            }

            async fn update_yield(&mut self, society_id: i64, row: YieldUpdate, now: i64) -> Result<RowOutcome, sqlx::Error> {
                let updated = sqlx::query(
                    "UPDATE campaigns SET objective_yield = $3, updated_at = $4 \
                     WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL",
                )
                .bind(society_id)
                .bind(row.campaign_id)
                .bind(row.objective_yield)
                .bind(now)
                .execute(&mut **self)
                .await?
                .rows_affected();
                if updated == 1 {
                    self.changed(society_id, &CAMPAIGN, [row.campaign_id], "updated");
                    Ok(Ok(json!(row.campaign_id)))
                } else {
                    Ok(Err((Some(row.campaign_id), row.not_found())))
                }
            }

            async fn import_campaign(
                &mut self,
                society_id: i64,
                row: NewCampaign,
                row_number: usize,
                share: &str,
                now: i64,
            ) -> Result<RowOutcome, sqlx::Error> {
                // The plot stays live until the campaign is committed: deleting it waits (see
                // `Store::delete_logically`), and then finds the campaign.
                let plot: Option<i64> = sqlx::query_scalar(&format!(
                    "SELECT id FROM plots WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL{share}"
                ))
                .bind(society_id)
                .bind(row.plot_id)
                .fetch_optional(&mut **self)
                .await?;
                let master: Option<i64> = sqlx::query_scalar(
                    "SELECT id FROM master_campaigns WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL",
                )
                .bind(society_id)
                .bind(row.master_campaign_id)
                .fetch_optional(&mut **self)
                .await?;
                // The row's code is in the form the API's writes store codes in, so the import's are theirs.
                let code = row.external_code.as_deref();
                let taken: Option<i64> = match code {
                    Some(code) => sqlx::query_scalar(
                        "SELECT id FROM campaigns WHERE society_id = $1 AND external_code = $2 AND deleted_at IS NULL",
                    )
                    .bind(society_id)
                    .bind(code)
                    .fetch_optional(&mut **self)
                    .await?,
                    None => None,
                };
                let found = Found { plot: plot.is_some(), master_campaign: master.is_some(), code_holder: taken };
                if let Err(refusal) = row.check_references(found) {
                    return Ok(Err((None, refusal)));
                }
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO campaigns (society_id, master_campaign_id, plot_id, name, external_code, \
                     area, planting_date, objective_yield, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING id",
                )
                .bind(society_id)
                .bind(row.master_campaign_id)
                .bind(row.plot_id)
                .bind(row.name.as_str())
                .bind(code)
                .bind(row.area)
                .bind(row.planting_date.as_deref())
                .bind(row.objective_yield)
                .bind(now)
                .fetch_one(&mut **self)
                .await?;
                self.changed(society_id, &CAMPAIGN, [id], "created");
                Ok(Ok(json!({ "row": row_number, "campaign_id": id })))
            }
        }
    };
}

job_rows!(sqlx::Sqlite);
job_rows!(sqlx::Postgres);
