//! Plots as the v3 writes speak them: create, read back by id, logically delete.

use wire::plots::NewPlot;

use super::{Deletable, Refusal};
use crate::db::{with_writer, BeginWrite, RowLock};
use crate::{now_millis, resource, Scope, Store, StoreError};

resource! {
    /// `GET /api/v3/third_party/plots/{id}`, and the answer of plot writes.
    PlotsV3, PlotV3Row => wire::plots::PlotV3 {
        name: "plots",
        from: "plots t",
        scoping: Society,
        audit: standard,
        fields {
            establishment_id: i64 = "t.establishment_id" => plain,
            name: String = "t.name" => plain,
            area: f64 = "t.area" => hectares,
            external_code: Option<String> = "t.external_code" => plain,
            active: bool = "t.active" => plain,
            created_by_id: Option<i64> = "t.created_by" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

impl Deletable for PlotsV3 {
    const TABLE: &'static str = "plots";
}

impl Store {
    /// Creates a plot in a live establishment of the caller's society, on behalf of `user_id`.
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id()))]
    pub async fn create_plot(
        &self,
        scope: &Scope,
        user_id: i64,
        new: &NewPlot,
    ) -> Result<Result<wire::plots::PlotV3, Refusal>, StoreError> {
        let name = new.name.trim();
        if name.is_empty() {
            return Ok(Err(Refusal::Blank("name")));
        }
        if !(new.area.is_finite() && new.area > 0.0) {
            return Ok(Err(Refusal::NotPositive("area")));
        }
        if new.area > domain::MAX_HECTARES {
            let (field, min, max) = ("area", 0.0, domain::MAX_HECTARES);
            return Ok(Err(Refusal::OutOfRange { field, min, max }));
        }
        let society_id = scope.society_id();
        let now = now_millis();
        // The establishment stays live until the plot is committed: deleting it waits (see `Store::delete_logically`).
        let share = self.db.dialect().lock_rows(RowLock::Share);
        let created: Option<i64> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let establishment: Option<i64> = sqlx::query_scalar(&format!(
                "SELECT id FROM establishments WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL{share}"
            ))
            .bind(society_id)
            .bind(new.establishment_id)
            .fetch_optional(&mut *tx)
            .await?;
            match establishment {
                None => None,
                Some(_) => {
                    let id: i64 = sqlx::query_scalar(
                        "INSERT INTO plots (society_id, establishment_id, name, area, external_code, created_by, active, \
                         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id",
                    )
                    .bind(society_id)
                    .bind(new.establishment_id)
                    .bind(name)
                    .bind(domain::round_hectares(new.area))
                    .bind(new.external_code.as_deref().map(str::trim).filter(|c| !c.is_empty()))
                    .bind(user_id)
                    .bind(new.active.unwrap_or(true))
                    .bind(now)
                    .fetch_one(&mut *tx)
                    .await?;
                    tx.commit().await?;
                    Some(id)
                }
            }
        });
        let Some(id) = created else {
            return Ok(Err(Refusal::UnknownReference {
                field: "establishment_id",
                id: new.establishment_id,
            }));
        };
        Ok(self.find::<PlotsV3>(scope, id).await?.ok_or(Refusal::NotFound))
    }
}
