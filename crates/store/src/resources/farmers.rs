//! Farmers: read-only through the API, in a v2 and a v3 shape over one row.

use wire::farmers::{FarmerV2, FarmerV3};

use crate::{ListSpec, Render, Resource, Scoping};

crate::row_by_position! {
    /// A farmer with its derived area.
    #[derive(Debug)]
    pub struct FarmerRow {
        id: i64,
        society_id: i64,
        name: String,
        lastname: Option<String>,
        cuit: Option<String>,
        observations: Option<String>,
        external_code: Option<String>,
        email: Option<String>,
        phone_number: Option<String>,
        active: bool,
        created_at: i64,
        updated_at: i64,
        deleted_at: Option<i64>,
        area: f64,
    }
}

// The area is summed from the farmer's establishments down (by `establishments_farmer`, then `plots_establishment`);
// the unary `+` keeps SQLite's planner off the `(society_id, deleted_at)` indexes, which would read every plot of the
// society once per farmer. On PostgreSQL `plots_establishment` carries `deleted_at` and `area`, so the plots are
// summed from the index alone (migration 22).
const SPEC: ListSpec = ListSpec {
    name: "farmers",
    from: "farmers t",
    columns: "t.id, t.society_id, t.name, t.lastname, t.cuit, t.observations, t.external_code, t.email, \
              t.phone_number, t.active, t.created_at, t.updated_at, t.deleted_at, \
              COALESCE((SELECT SUM(p.area) FROM plots p \
                        WHERE p.society_id = $1 AND +p.deleted_at IS NULL \
                        AND p.establishment_id IN (SELECT e.id FROM establishments e \
                        WHERE e.society_id = $1 AND e.farmer_id = t.id AND +e.deleted_at IS NULL)), 0.0) AS area",
    scoping: Scoping::Society,
    condition: None,
    created: Some("t.created_at"),
    updated: Some("t.updated_at"),
    deleted: Some("t.deleted_at"),
    active: Some("t.active"),
};

/// `GET /api/v2/third_party/farmers`.
pub struct FarmersV2;

impl Resource for FarmersV2 {
    type Row = FarmerRow;

    fn id(row: &FarmerRow) -> i64 {
        row.id
    }

    type Item = FarmerV2;
    type Related = ();
    const SPEC: ListSpec = SPEC;

    fn render(row: FarmerRow, _related: (), render: &Render) -> FarmerV2 {
        FarmerV2 {
            id: row.id,
            society_id: row.society_id,
            name: row.name,
            lastname: row.lastname,
            cuit: row.cuit,
            observations: row.observations,
            deleted_at: render.at_opt(row.deleted_at),
            date_created: render.at(row.created_at),
            date_modified: render.at(row.updated_at),
            external_code: row.external_code,
            email: row.email,
            phone_number: row.phone_number,
            area: domain::round_hectares(row.area),
        }
    }
}

/// `GET /api/v3/third_party/farmers`.
pub struct FarmersV3;

impl Resource for FarmersV3 {
    type Row = FarmerRow;

    fn id(row: &FarmerRow) -> i64 {
        row.id
    }

    type Item = FarmerV3;
    type Related = ();
    const SPEC: ListSpec = SPEC;

    fn render(row: FarmerRow, _related: (), render: &Render) -> FarmerV3 {
        FarmerV3 {
            id: row.id,
            name: row.name,
            lastname: row.lastname,
            cuit: row.cuit,
            observations: row.observations,
            external_code: row.external_code,
            email: row.email,
            phone_number: row.phone_number,
            area: domain::round_hectares(row.area),
            active: row.active,
            created_at: render.at(row.created_at),
            updated_at: render.at(row.updated_at),
            deleted_at: render.at_opt(row.deleted_at),
        }
    }
}
