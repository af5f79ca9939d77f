//! Establishments: listed, read by id, created and logically deleted through v3.

use wire::establishments::{Establishment, NewEstablishment};

use super::{Deletable, Refusal};
use crate::db::{with_writer, BeginWrite};
use crate::{now_millis, ListSpec, Render, Resource, Scope, Scoping, Store, StoreError};

/// One establishment row.
#[derive(Debug, sqlx::FromRow)]
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

/// Unqualified, so the same list serves `SELECT`, and `RETURNING` (which SQLite allows only unqualified).
const COLUMNS: &str = "id, farmer_id, name, external_code, active, created_at, updated_at, deleted_at";

/// `GET /api/v3/third_party/establishments[/{id}]`.
pub struct Establishments;

impl Resource for Establishments {
    type Row = EstablishmentRow;
    type Item = Establishment;
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

    fn render(row: EstablishmentRow, render: &Render) -> Establishment {
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
    /// Creates an establishment of a live farmer of the caller's society.
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id()))]
    pub async fn create_establishment(
        &self,
        scope: &Scope,
        new: &NewEstablishment,
    ) -> Result<Result<Establishment, Refusal>, StoreError> {
        let name = new.name.trim();
        if name.is_empty() {
            return Ok(Err(Refusal::Blank("name")));
        }
        let society_id = scope.society_id();
        let now = now_millis();
        let row: Option<EstablishmentRow> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let farmer: Option<i64> = sqlx::query_scalar(
                "SELECT id FROM farmers WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL",
            )
            .bind(society_id)
            .bind(new.farmer_id)
            .fetch_optional(&mut *tx)
            .await?;
            if farmer.is_none() {
                None
            } else {
                let row: EstablishmentRow = sqlx::query_as(&format!(
                    "INSERT INTO establishments (society_id, farmer_id, name, external_code, active, created_at, \
                     updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING {COLUMNS}"
                ))
                .bind(society_id)
                .bind(new.farmer_id)
                .bind(name)
                .bind(new.external_code.as_deref().map(str::trim).filter(|c| !c.is_empty()))
                .bind(new.active.unwrap_or(true))
                .bind(now)
                .fetch_one(&mut *tx)
                .await?;
                tx.commit().await?;
                Some(row)
            }
        });
        Ok(match row {
            Some(row) => Ok(Establishments::render(row, &scope.render())),
            None => Err(Refusal::UnknownReference {
                field: "farmer_id",
                id: new.farmer_id,
            }),
        })
    }
}

impl Deletable for Establishments {
    const TABLE: &'static str = "establishments";
}
