//! Applicator writes (v2): create, full update, logical delete. Reads are the v3 list's.

use wire::applicators::ApplicatorWrite;

use super::{Deletable, Refusal};
use crate::db::{with_writer, BeginWrite};
use crate::resources::operations::Applicators;
use crate::{now_millis, Scope, Store, StoreError};

impl Deletable for Applicators {
    const TABLE: &'static str = "applicators";
}

fn text(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

impl Store {
    /// Creates an applicator (`id` is `None`) or replaces one of the caller's live applicators, machines included.
    #[tracing::instrument(skip(self, scope, body), fields(society = scope.society_id()))]
    pub async fn write_applicator(
        &self,
        scope: &Scope,
        id: Option<i64>,
        body: &ApplicatorWrite,
    ) -> Result<Result<wire::operations::Applicator, Refusal>, StoreError> {
        let name = body.name.trim();
        if name.is_empty() {
            return Ok(Err(Refusal::Blank("name")));
        }
        let society_id = scope.society_id();
        let now = now_millis();
        let written: Result<i64, Refusal> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let mut refusal = None;
            for machine in &body.machines {
                let found: Option<i64> = sqlx::query_scalar(
                    "SELECT id FROM machines WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL",
                )
                .bind(society_id)
                .bind(*machine)
                .fetch_optional(&mut *tx)
                .await?;
                if found.is_none() {
                    refusal = Some(Refusal::UnknownReference { field: "machines", id: *machine });
                    break;
                }
            }
            let target = match (refusal, id) {
                (Some(refusal), _) => Err(refusal),
                (None, None) => Ok(sqlx::query_scalar::<_, i64>(
                    "INSERT INTO applicators (society_id, name, address, phone_number, email, external_code, active, \
                     created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id",
                )
                .bind(society_id)
                .bind(name)
                .bind(text(&body.address))
                .bind(text(&body.phone_number))
                .bind(text(&body.email))
                .bind(text(&body.external_code))
                .bind(body.active.unwrap_or(true))
                .bind(now)
                .fetch_one(&mut *tx)
                .await?),
                (None, Some(id)) => {
                    let updated = sqlx::query(
                        "UPDATE applicators SET name = $3, address = $4, phone_number = $5, email = $6, external_code = $7, \
                         active = $8, updated_at = $9 WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL",
                    )
                    .bind(society_id)
                    .bind(id)
                    .bind(name)
                    .bind(text(&body.address))
                    .bind(text(&body.phone_number))
                    .bind(text(&body.email))
                    .bind(text(&body.external_code))
                    .bind(body.active.unwrap_or(true))
                    .bind(now)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                    if updated == 1 { Ok(id) } else { Err(Refusal::NotFound) }
                }
            };
            if let Ok(applicator) = target {
                sqlx::query("DELETE FROM applicator_machines WHERE society_id = $1 AND applicator_id = $2")
                    .bind(society_id)
                    .bind(applicator)
                    .execute(&mut *tx)
                    .await?;
                let mut machines = body.machines.clone();
                machines.sort_unstable();
                machines.dedup();
                for machine in machines {
                    sqlx::query("INSERT INTO applicator_machines (society_id, applicator_id, machine_id) VALUES ($1, $2, $3)")
                        .bind(society_id)
                        .bind(applicator)
                        .bind(machine)
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
            }
            target
        });
        match written {
            Err(refusal) => Ok(Err(refusal)),
            Ok(id) => Ok(self.find::<Applicators>(scope, id).await?.ok_or(Refusal::NotFound)),
        }
    }
}
