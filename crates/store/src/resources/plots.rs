//! Plots as the v3 writes speak them: create, read back by id, logically delete.

use domain::master_data::{optional_text, NewPlot};
use domain::Refusal;

use super::Deletable;
use crate::db::with_writer;
use crate::events::EventResource;
use crate::lookups::{ask, Lookups, Owner};
use crate::write::BeginWrite;
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
    const EVENTS: &'static EventResource = &PLOT;
}

/// A plot's events: a change of its tags is the plot's.
pub(crate) static PLOT: EventResource = EventResource::of::<PlotsV3>("plot", &["plots", "plot_tags"]);

impl Store {
    /// What the rules about the records `new` names answer, asked without writing (a read that locks nothing): for a
    /// body refused for its own rules, so that its refusal names these too.
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id()))]
    pub async fn plot_references(&self, scope: &Scope, new: &NewPlot) -> Result<Result<(), Refusal>, StoreError> {
        let mut lookups = Lookups::reading(self.db.dialect());
        let society = Owner::Society(scope.society_id());
        let establishment = lookups.live("establishments", society, [new.establishment_id]);
        let found = self.ask_reading(&lookups).await?;
        Ok(new.references_hold(found.has(establishment, new.establishment_id)))
    }

    /// Creates a plot in a live establishment of the caller's society, on behalf of `user_id`; `new` meets its own
    /// rules (`NewPlot::check`).
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id()))]
    pub async fn create_plot(
        &self,
        scope: &Scope,
        user_id: i64,
        new: &NewPlot,
    ) -> Result<Result<wire::plots::PlotV3, Refusal>, StoreError> {
        let society_id = scope.society_id();
        let now = now_millis();
        let mut lookups = Lookups::new(self.db.dialect());
        let establishment = lookups.live("establishments", Owner::Society(society_id), [new.establishment_id]);
        let external_code = optional_text(new.external_code.as_deref());
        let written: Result<Result<i64, Refusal>, sqlx::Error> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let found = ask!(lookups, tx);
            if let Err(refusal) = new.references_hold(found.has(establishment, new.establishment_id)) {
                Ok(Err(refusal))
            } else {
                let inserted = sqlx::query_scalar(
                    "INSERT INTO plots (society_id, establishment_id, name, area, external_code, created_by, active, \
                     created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id",
                )
                .bind(society_id)
                .bind(new.establishment_id)
                .bind(new.name.trim())
                .bind(domain::round_hectares(new.area))
                .bind(external_code)
                .bind(user_id)
                .bind(new.active)
                .bind(now)
                .fetch_one(&mut *tx)
                .await;
                match inserted {
                    Ok(id) => {
                        tx.changed(society_id, &PLOT, [id], "created");
                        tx.commit().await?;
                        Ok(Ok(id))
                    }
                    Err(error) => Err(error),
                }
            }
        });
        let created = match written {
            Ok(created) => created,
            Err(error) => Err(Refusal::DuplicateExternalCode(
                self.taken_code(error, "plots", society_id, external_code, None).await?,
            )),
        };
        self.written::<PlotsV3>(scope, created).await
    }
}
