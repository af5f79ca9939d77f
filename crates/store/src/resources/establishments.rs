//! Establishments: listed, read by id, created and logically deleted through v3.

use domain::master_data::{optional_text, NewEstablishment};
use domain::Refusal;
use wire::establishments::Establishment;

use super::Deletable;
use crate::db::with_writer;
use crate::events::EventResource;
use crate::lookups::{ask, Lookups, Owner};
use crate::write::BeginWrite;
use crate::{now_millis, ListSpec, Render, Resource, Scope, Scoping, Store, StoreError};

crate::row_by_position! {
    /// One establishment row.
    #[derive(Debug)]
    pub struct EstablishmentRow {
        id: i64,
        farmer_id: i64,
        name: String,
        external_code: Option<String>,
        active: bool,
        created_at: i64,
        updated_at: i64,
        deleted_at: Option<i64>,
    }
}

/// Unqualified, so the same list serves `SELECT`, and `RETURNING` (which SQLite allows only unqualified).
const COLUMNS: &str = "id, farmer_id, name, external_code, active, created_at, updated_at, deleted_at";

/// `GET /api/v3/third_party/establishments[/{id}]`.
pub struct Establishments;

impl Resource for Establishments {
    type Row = EstablishmentRow;

    fn id(row: &EstablishmentRow) -> i64 {
        row.id
    }

    type Item = Establishment;
    type Related = ();
    const SPEC: ListSpec = ListSpec {
        name: "establishments",
        from: "establishments t",
        columns: COLUMNS,
        scoping: Scoping::Society,
        condition: None,
        created: Some("t.created_at"),
        updated: Some("t.updated_at"),
        deleted: Some("t.deleted_at"),
        active: Some("t.active"),
    };

    fn render(row: EstablishmentRow, _related: (), render: &Render) -> Establishment {
        Establishment {
            id: row.id,
            farmer_id: row.farmer_id,
            name: row.name,
            external_code: row.external_code,
            active: row.active,
            created_at: render.at(row.created_at),
            updated_at: render.at(row.updated_at),
            deleted_at: render.at_opt(row.deleted_at),
        }
    }
}

impl Store {
    /// What the rules about the records `new` names answer, asked without writing (a read that locks nothing): for a
    /// body refused for its own rules, so that its refusal names these too.
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id()))]
    pub async fn establishment_references(
        &self,
        scope: &Scope,
        new: &NewEstablishment,
    ) -> Result<Result<(), Refusal>, StoreError> {
        let mut lookups = Lookups::reading(self.db.dialect());
        let farmer = lookups.live("farmers", Owner::Society(scope.society_id()), [new.farmer_id]);
        let found = self.ask_reading(&lookups).await?;
        Ok(new.references_hold(found.has(farmer, new.farmer_id)))
    }

    /// Creates an establishment of a live farmer of the caller's society; `new` meets its own rules
    /// (`NewEstablishment::check`).
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id()))]
    pub async fn create_establishment(
        &self,
        scope: &Scope,
        new: &NewEstablishment,
    ) -> Result<Result<Establishment, Refusal>, StoreError> {
        let society_id = scope.society_id();
        let now = now_millis();
        let mut lookups = Lookups::new(self.db.dialect());
        let farmer = lookups.live("farmers", Owner::Society(society_id), [new.farmer_id]);
        let external_code = optional_text(new.external_code.as_deref());
        let written: Result<Result<EstablishmentRow, Refusal>, sqlx::Error> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let found = ask!(lookups, tx);
            if let Err(refusal) = new.references_hold(found.has(farmer, new.farmer_id)) {
                Ok(Err(refusal))
            } else {
                let inserted = sqlx::query_as(&format!(
                    "INSERT INTO establishments (society_id, farmer_id, name, external_code, active, created_at, \
                     updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING {COLUMNS}"
                ))
                .bind(society_id)
                .bind(new.farmer_id)
                .bind(new.name.trim())
                .bind(external_code)
                .bind(new.active)
                .bind(now)
                .fetch_one(&mut *tx)
                .await;
                match inserted {
                    Ok(row) => {
                        tx.changed(society_id, &ESTABLISHMENT, [Establishments::id(&row)], "created");
                        tx.commit().await?;
                        Ok(Ok(row))
                    }
                    Err(error) => Err(error),
                }
            }
        });
        let row = match written {
            Ok(row) => row,
            Err(error) => Err(Refusal::DuplicateExternalCode(
                self.taken_code(error, "establishments", society_id, external_code, None)
                    .await?,
            )),
        };
        Ok(row.map(|row| Establishments::render(row, (), &scope.render())))
    }
}

impl Deletable for Establishments {
    const TABLE: &'static str = "establishments";
    const EVENTS: &'static EventResource = &ESTABLISHMENT;
}

/// An establishment's events.
pub(crate) static ESTABLISHMENT: EventResource =
    EventResource::of::<Establishments>("establishment", &["establishments"]);
