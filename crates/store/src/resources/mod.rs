//! The declaration of every resource: its table, columns, scope and wire shape, and its writes where it has any.
//! A write takes a domain command (never a wire body) whose own rules the caller has checked, asks its references
//! through [`crate::lookups`], has the domain judge what it found, and answers the stored record or the domain's
//! [`Refusal`].

pub mod applicators;
pub mod establishments;
pub(crate) mod events;
pub mod farmers;
pub mod field;
pub mod field_writes;
pub mod operations;
pub mod planning;
pub mod plots;
pub mod work_orders;

use domain::Refusal;

use crate::db::{with_reader, with_writer};
use crate::sql::RowLock;
use crate::write::BeginWrite;
use crate::{now_millis, Resource, Scope, Store, StoreError};

/// A society-owned resource that the API deletes logically.
pub trait Deletable: Resource {
    /// Its table; live records of the tables that refer to it forbid the deletion (see [`crate::dependants`]).
    const TABLE: &'static str;
    /// Its events: a deletion is one.
    const EVENTS: &'static crate::events::EventResource;
}

impl Store {
    /// Logically deletes a record of the caller's society: `deleted_at` and `updated_at` are set and the record is
    /// answered as it now is. A record already deleted is answered unchanged, so a retried delete succeeds; one with
    /// live dependants is refused, so nothing is orphaned.
    #[tracing::instrument(skip(self, scope), fields(resource = R::SPEC.name, society = scope.society_id()))]
    pub async fn delete_logically<R: Deletable>(
        &self,
        scope: &Scope,
        id: i64,
    ) -> Result<Result<R::Item, Refusal>, StoreError> {
        let society_id = scope.society_id();
        let now = now_millis();
        // The record stays locked until the delete commits: a write that creates a dependant locks it to share and
        // checks it is live, so it either commits first (and is counted below) or waits and finds it deleted.
        let lock = self.db.dialect().lock_rows(RowLock::Update);
        let dependants = self.dependants().await?.of(R::TABLE);
        let outcome: Result<(), Refusal> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let current: Option<Option<i64>> =
                sqlx::query_scalar(&format!("SELECT deleted_at FROM {} WHERE society_id = $1 AND id = $2{lock}", R::TABLE))
                    .bind(society_id)
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await?;
            match current {
                None => Err(Refusal::NotFound),
                Some(Some(_)) => Ok(()),
                Some(None) => {
                    let mut refusal = None;
                    for dependant in dependants {
                        let count: i64 = sqlx::query_scalar(&format!(
                            "SELECT COUNT(*) FROM {} WHERE society_id = $1 AND {} = $2 AND deleted_at IS NULL",
                            dependant.table, dependant.column
                        ))
                        .bind(society_id)
                        .bind(id)
                        .fetch_one(&mut *tx)
                        .await?;
                        if count > 0 {
                            refusal = Some(Refusal::HasDependants { resource: dependant.table, count });
                            break;
                        }
                    }
                    match refusal {
                        Some(refusal) => Err(refusal),
                        None => {
                            sqlx::query(&format!(
                                "UPDATE {} SET deleted_at = $3, updated_at = $3 WHERE society_id = $1 AND id = $2",
                                R::TABLE
                            ))
                            .bind(society_id)
                            .bind(id)
                            .bind(now)
                            .execute(&mut *tx)
                            .await?;
                            tx.changed(society_id, R::EVENTS, [id], "deleted");
                            tx.commit().await?;
                            Ok(())
                        }
                    }
                }
            }
        });
        if let Err(refusal) = outcome {
            return Ok(Err(refusal));
        }
        Ok(self.find::<R>(scope, id).await?.ok_or(Refusal::NotFound))
    }
}

impl Store {
    /// The record a write stored (its id), as its read answers it; or why the write was refused.
    pub(crate) async fn written<R: Resource>(
        &self,
        scope: &Scope,
        outcome: Result<i64, Refusal>,
    ) -> Result<Result<R::Item, Refusal>, StoreError> {
        match outcome {
            Ok(id) => Ok(self.find::<R>(scope, id).await?.ok_or(Refusal::NotFound)),
            Err(refusal) => Ok(Err(refusal)),
        }
    }
}

impl Store {
    /// The record to name when the database refused a write of a record of `table`. A unique violation there means
    /// another live record of the society holds the external code the write gives (migration 11's index, which holds
    /// also when two writes race): the write is refused naming that record. Anything else is a failure.
    pub(crate) async fn taken_code(
        &self,
        error: sqlx::Error,
        table: &'static str,
        society_id: i64,
        code: Option<&str>,
        except: Option<i64>,
    ) -> Result<i64, StoreError> {
        let unique = error
            .as_database_error()
            .is_some_and(|error| error.kind() == sqlx::error::ErrorKind::UniqueViolation);
        if let (true, Some(code)) = (unique, code) {
            let holder: Option<i64> = with_reader!(&self.db, pool => {
                sqlx::query_scalar(&format!(
                    "SELECT id FROM {table} WHERE society_id = $1 AND external_code = $2 AND deleted_at IS NULL \
                     AND id <> $3"
                ))
                .bind(society_id)
                .bind(code)
                .bind(except.unwrap_or(0))
                .fetch_optional(pool)
                .await?
            });
            if let Some(holder) = holder {
                return Ok(holder);
            }
        }
        Err(error.into())
    }
}
