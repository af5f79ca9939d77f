//! Applicator writes (v2): create, full update, logical delete. Reads are the v3 list's.

use domain::master_data::{optional_text, ApplicatorCommand};
use domain::Refusal;

use super::Deletable;
use crate::db::with_writer;
use crate::events::EventResource;
use crate::lookups::{ask, Lookups, Owner};
use crate::resources::events::APPLICATOR;
use crate::resources::operations::Applicators;
use crate::sql::{bind_args, Arg, Batch};
use crate::write::BeginWrite;
use crate::{now_millis, Scope, Store, StoreError};

impl Deletable for Applicators {
    const TABLE: &'static str = "applicators";
    const EVENTS: &'static EventResource = &APPLICATOR;
}

impl Store {
    /// What the rules about the records `command` names answer, asked without writing (a read that locks nothing): for a
    /// body refused for its own rules, so that its refusal names these too.
    #[tracing::instrument(skip(self, scope, command), fields(society = scope.society_id()))]
    pub async fn applicator_references(
        &self,
        scope: &Scope,
        command: &ApplicatorCommand,
    ) -> Result<Result<(), Refusal>, StoreError> {
        let mut lookups = Lookups::reading(self.db.dialect());
        let society = Owner::Society(scope.society_id());
        let machines = lookups.live("machines", society, command.distinct_machines());
        let found = self.ask_reading(&lookups).await?;
        Ok(command.references_hold(found.of(machines)))
    }

    /// Creates an applicator (`id` is `None`) or replaces one of the caller's live applicators, machines included;
    /// `command` meets its own rules (`ApplicatorCommand::check`).
    #[tracing::instrument(skip(self, scope, command), fields(society = scope.society_id()))]
    pub async fn write_applicator(
        &self,
        scope: &Scope,
        id: Option<i64>,
        command: &ApplicatorCommand,
    ) -> Result<Result<wire::operations::Applicator, Refusal>, StoreError> {
        let society_id = scope.society_id();
        let now = now_millis();
        let machines = command.distinct_machines();
        let mut lookups = Lookups::new(self.db.dialect());
        let live_machines = lookups.live("machines", Owner::Society(society_id), machines.iter().copied());
        let [address, phone_number, email, external_code] = [
            &command.address,
            &command.phone_number,
            &command.email,
            &command.external_code,
        ]
        .map(|text| optional_text(text.as_deref()));
        let written: Result<Result<i64, Refusal>, sqlx::Error> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let found = ask!(lookups, tx);
            let target = match (command.references_hold(found.of(live_machines)), id) {
                (Err(refusal), _) => Ok(Err(refusal)),
                (Ok(()), None) => sqlx::query_scalar::<_, i64>(
                    "INSERT INTO applicators (society_id, name, address, phone_number, email, external_code, active, \
                     created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id",
                )
                .bind(society_id)
                .bind(command.name.trim())
                .bind(address)
                .bind(phone_number)
                .bind(email)
                .bind(external_code)
                .bind(command.active)
                .bind(now)
                .fetch_one(&mut *tx)
                .await
                .map(Ok),
                (Ok(()), Some(id)) => sqlx::query(
                        "UPDATE applicators SET name = $3, address = $4, phone_number = $5, email = $6, external_code = $7, \
                         active = $8, updated_at = $9 WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL",
                    )
                    .bind(society_id)
                    .bind(id)
                    .bind(command.name.trim())
                    .bind(address)
                    .bind(phone_number)
                    .bind(email)
                    .bind(external_code)
                    .bind(command.active)
                    .bind(now)
                    .execute(&mut *tx)
                    .await
                    .map(|done| if done.rows_affected() == 1 { Ok(id) } else { Err(Refusal::NotFound) }),
            };
            if let Ok(Ok(applicator)) = target {
                sqlx::query("DELETE FROM applicator_machines WHERE society_id = $1 AND applicator_id = $2")
                    .bind(society_id)
                    .bind(applicator)
                    .execute(&mut *tx)
                    .await?;
                if !machines.is_empty() {
                    let mut batch = Batch::new(self.db.dialect());
                    let insert = batch
                        .statement()
                        .push("INSERT INTO applicator_machines (society_id, applicator_id, machine_id) VALUES ");
                    for (index, machine) in machines.iter().enumerate() {
                        if index > 0 {
                            insert.push(", ");
                        }
                        insert.row([Arg::Int(society_id), Arg::Int(applicator), Arg::Int(*machine)]);
                    }
                    for sql in batch.into_queries() {
                        bind_args!(sqlx::query(&sql.text), &sql.args).execute(&mut *tx).await?;
                    }
                }
                tx.changed(society_id, &APPLICATOR, [applicator], if id.is_some() { "updated" } else { "created" });
                tx.commit().await?;
            }
            target
        });
        let written = match written {
            Ok(written) => written,
            Err(error) => Err(Refusal::DuplicateExternalCode(
                self.taken_code(error, "applicators", society_id, external_code, id)
                    .await?,
            )),
        };
        self.written::<Applicators>(scope, written).await
    }
}
