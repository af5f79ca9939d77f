//! Land and planning: plots (v2), tags, species, cycles, planting times, master campaigns, campaigns, cultivations, products (formulateds, formulation types, units), statuses and states, external systems.

use crate::resource;

resource! {
    /// `GET /api/v3/third_party/units[/{id}]`.
    Units, UnitRow => wire::planning::Unit {
        name: "units",
        from: "units t",
        scoping: Global,
        created: Some("t.created_at"),
        updated: Some("t.updated_at"),
        deleted: Some("t.deleted_at"),
        active: Some("t.active"),
        fields {
            name: String = "t.name" => plain,
            abbreviation: String = "t.abbreviation" => plain,
            kind: String = "t.kind" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}
