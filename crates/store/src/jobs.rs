//! The job table: background work that outlives any one request or process.
//!
//! A job is claimed by one worker at a time under a lease (`locked_by`, `locked_until`); PostgreSQL claims with
//! `FOR UPDATE SKIP LOCKED`, so several server processes never take the same job, and a chunk keeps the job's row
//! locked until it commits, so a lease that runs out mid-chunk does not let a second worker redo its rows. The work is
//! done in chunks, each chunk and the job's progress committed in one transaction, so a worker killed mid-job loses at
//! most an uncommitted chunk: when its lease runs out another worker (or the same process, restarted) resumes at the
//! first row not yet processed.

use std::time::Duration;

use domain::jobs::{check_area, check_objective_yield, JobStatus, RowRefusal, CAMPAIGN_IMPORT, UPDATE_OBJECTIVE_YIELD};
use serde_json::{json, Value};
use wire::jobs::{CampaignImportRow, ObjectiveYieldRow};

use crate::db::{with_writer, BeginWrite, Dialect, RowLock};
use crate::{now_millis, Scope, Store, StoreError};

/// Claims of a job after which it is given up as failed.
pub const MAX_ATTEMPTS: i64 = 5;

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

fn refused(row: usize, reason: &RowRefusal, id: Option<i64>) -> Value {
    json!({ "row": row, "campaign_id": id, "reason": reason.to_string() })
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
            tx.commit().await?;
            id
        });
        Ok(id)
    }

    /// Claims the oldest job that is waiting, or whose worker's lease ran out, for `worker`; gives up on jobs
    /// claimed [`MAX_ATTEMPTS`] times.
    pub async fn claim_job(&self, worker: &str, lease: Duration) -> Result<Option<ClaimedJob>, StoreError> {
        let now = now_millis();
        let lock = match self.db.dialect() {
            // Several processes may claim at once: each skips the rows another is claiming.
            Dialect::Postgres => " FOR UPDATE SKIP LOCKED",
            // SQLite serialises writers, so the sub-select and the update cannot interleave with another claim.
            Dialect::Sqlite => "",
        };
        let claimable = "(status = 'pending' OR (status = 'running' AND locked_until < $3))";
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            sqlx::query(&format!(
                "UPDATE jobs SET status = 'failed', error = $1, finished_at = $3, updated_at = $3, locked_by = NULL \
                 WHERE {claimable} AND attempts >= $2"
            ))
            .bind(format!("gave up after {MAX_ATTEMPTS} attempts"))
            .bind(MAX_ATTEMPTS)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            let claimed: Option<ClaimedJob> = sqlx::query_as(&format!(
                "UPDATE jobs SET status = 'running', locked_by = $1, locked_until = $2, attempts = attempts + 1, \
                 started_at = COALESCE(started_at, $3), updated_at = $3 \
                 WHERE (society_id, id) = (SELECT society_id, id FROM jobs WHERE {claimable} \
                 ORDER BY created_at, id LIMIT 1{lock}) RETURNING society_id, id, kind"
            ))
            .bind(worker)
            .bind(now + millis(lease))
            .bind(now)
            .fetch_optional(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(claimed)
        })
    }

    /// Handles up to `chunk` more rows of a claimed job in one transaction, with the job's progress, and extends the
    /// lease.
    pub async fn work_job(
        &self,
        job: &ClaimedJob,
        worker: &str,
        chunk: usize,
        lease: Duration,
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
            let input: Value = serde_json::from_str(&state.input).unwrap_or(Value::Null);
            let rows = input["campaigns"].as_array().cloned().unwrap_or_default();
            let start = usize::try_from(state.processed_items).unwrap_or(usize::MAX).min(rows.len());
            let end = start.saturating_add(chunk).min(rows.len());
            let mut result: Value = state.result.as_deref().and_then(|r| serde_json::from_str(r).ok()).unwrap_or_else(|| {
                if job.kind == CAMPAIGN_IMPORT { json!({ "created": [], "refused": [] }) } else { json!({ "updated": 0, "refused": [] }) }
            });
            let mut failed = 0_i64;
            for (index, raw) in rows.iter().enumerate().take(end).skip(start) {
                let row_number = index + 1;
                let outcome: Result<Value, Value> = match job.kind.as_str() {
                    UPDATE_OBJECTIVE_YIELD => match serde_json::from_value::<ObjectiveYieldRow>(raw.clone()) {
                        Err(error) => Err(json!({ "row": row_number, "campaign_id": null, "reason": error.to_string() })),
                        Ok(row) => match check_objective_yield(row.objective_yield) {
                            Err(reason) => Err(refused(row_number, &reason, Some(row.campaign_id))),
                            Ok(value) => {
                                let updated = sqlx::query(
                                    "UPDATE campaigns SET objective_yield = $3, updated_at = $4 \
                                     WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL",
                                )
                                .bind(job.society_id)
                                .bind(row.campaign_id)
                                .bind(value)
                                .bind(now)
                                .execute(&mut *tx)
                                .await?
                                .rows_affected();
                                if updated == 1 {
                                    Ok(json!(row.campaign_id))
                                } else {
                                    let reason = RowRefusal::Unknown { field: "campaign_id", id: row.campaign_id };
                                    Err(refused(row_number, &reason, Some(row.campaign_id)))
                                }
                            }
                        },
                    },
                    CAMPAIGN_IMPORT => match serde_json::from_value::<CampaignImportRow>(raw.clone()) {
                        Err(error) => Err(json!({ "row": row_number, "campaign_id": null, "reason": error.to_string() })),
                        Ok(row) => {
                            // The plot stays live until the campaign is committed: deleting it waits (see
                            // `Store::delete_logically`), and then finds the campaign.
                            let plot: Option<i64> = sqlx::query_scalar(&format!(
                                "SELECT id FROM plots WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL{share}"
                            ))
                            .bind(job.society_id)
                            .bind(row.plot_id)
                            .fetch_optional(&mut *tx)
                            .await?;
                            let master: Option<i64> = sqlx::query_scalar(
                                "SELECT id FROM master_campaigns WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL",
                            )
                            .bind(job.society_id)
                            .bind(row.master_campaign_id)
                            .fetch_optional(&mut *tx)
                            .await?;
                            // In the form the API's writes store codes in, so that the import's codes are theirs.
                            let code = domain::text::code(row.external_code.as_deref());
                            let code = code.as_deref();
                            let taken: Option<i64> = match code {
                                Some(code) => sqlx::query_scalar(
                                    "SELECT id FROM campaigns WHERE society_id = $1 AND external_code = $2 AND deleted_at IS NULL",
                                )
                                .bind(job.society_id)
                                .bind(code)
                                .fetch_optional(&mut *tx)
                                .await?,
                                None => None,
                            };
                            let check = (|| {
                                if row.name.trim().is_empty() {
                                    return Err(RowRefusal::Blank("name"));
                                }
                                let area = check_area(row.area)?;
                                let objective = row.objective_yield.map(check_objective_yield).transpose()?;
                                plot.ok_or(RowRefusal::Unknown { field: "plot_id", id: row.plot_id })?;
                                master.ok_or(RowRefusal::Unknown { field: "master_campaign_id", id: row.master_campaign_id })?;
                                if let (Some(code), Some(_)) = (code, taken) {
                                    return Err(RowRefusal::DuplicateExternalCode(code.to_owned()));
                                }
                                Ok((area, objective))
                            })();
                            match check {
                                Err(reason) => Err(refused(row_number, &reason, None)),
                                Ok((area, objective)) => {
                                    let id: i64 = sqlx::query_scalar(
                                        "INSERT INTO campaigns (society_id, master_campaign_id, plot_id, name, external_code, \
                                         area, planting_date, objective_yield, created_at, updated_at) \
                                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING id",
                                    )
                                    .bind(job.society_id)
                                    .bind(row.master_campaign_id)
                                    .bind(row.plot_id)
                                    .bind(row.name.trim())
                                    .bind(code)
                                    .bind(area)
                                    .bind(row.planting_date.as_deref())
                                    .bind(objective)
                                    .bind(now)
                                    .fetch_one(&mut *tx)
                                    .await?;
                                    Ok(json!({ "row": row_number, "campaign_id": id }))
                                }
                            }
                        }
                    },
                    other => Err(json!({ "row": row_number, "campaign_id": null, "reason": format!("unknown job kind {other}") })),
                };
                match outcome {
                    Ok(done) => {
                        if job.kind == CAMPAIGN_IMPORT {
                            if let Some(created) = result["created"].as_array_mut() {
                                created.push(done);
                            }
                        } else {
                            result["updated"] = json!(result["updated"].as_i64().unwrap_or(0) + 1);
                        }
                    }
                    Err(refusal) => {
                        failed += 1;
                        if let Some(list) = result["refused"].as_array_mut() {
                            list.push(refusal);
                        }
                    }
                }
            }
            let processed = i64::try_from(end).unwrap_or(i64::MAX);
            let finished = end >= rows.len() || processed >= state.total_items;
            let status = if finished { JobStatus::Finished } else { JobStatus::Running };
            sqlx::query(
                "UPDATE jobs SET processed_items = $3, failed_items = $4, result = $5, status = $6, updated_at = $7, \
                 locked_until = $8, finished_at = $9, locked_by = $10 WHERE society_id = $1 AND id = $2",
            )
            .bind(job.society_id)
            .bind(job.id)
            .bind(processed)
            .bind(state.failed_items + failed)
            .bind(result.to_string())
            .bind(status.as_str())
            .bind(now)
            .bind(now + millis(lease))
            .bind(finished.then_some(now))
            .bind((!finished).then_some(worker))
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(if finished { Progress::Finished } else { Progress::More })
        })
    }
}
