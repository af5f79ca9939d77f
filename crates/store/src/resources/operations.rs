//! Operations: contractors, machines, applicators, warehouses, voucher types, labour types, background jobs. Most
//! are one-line declarations. Work orders, read and written, are [`super::work_orders`].

use wire::operations::Job;

use crate::{resource, ListSpec, Render, Resource, Scope, Scoping, Store, StoreError};

resource! {
    /// `GET /api/v3/third_party/applicators`, with the ids of the machines each one operates.
    Applicators, ApplicatorRow => wire::operations::Applicator {
        name: "applicators",
        from: "applicators t",
        scoping: Society,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            address: Option<String> = "t.address" => plain,
            phone_number: Option<String> = "t.phone_number" => plain,
            email: Option<String> = "t.email" => plain,
            machines: Option<String> = "(SELECT string_agg(CAST(m.machine_id AS TEXT), ',' ORDER BY m.machine_id) \
                FROM applicator_machines m WHERE m.society_id = $1 AND m.applicator_id = t.id)" => ids,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
            active: bool = "t.active" => plain,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/machines[/{id}]`.
    Machines, MachineRow => wire::operations::Machine {
        name: "machines",
        from: "machines t",
        scoping: Society,
        audit: standard,
        fields {
            contractor_id: Option<i64> = "t.contractor_id" => plain,
            name: String = "t.name" => plain,
            kind: String = "t.kind" => plain,
            brand: Option<String> = "t.brand" => plain,
            model: Option<String> = "t.model" => plain,
            year: Option<i64> = "t.year" => plain,
            license_plate: Option<String> = "t.license_plate" => plain,
            external_code: Option<String> = "t.external_code" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/contractors[/{id}]`.
    Contractors, ContractorRow => wire::operations::Contractor {
        name: "contractors",
        from: "contractors t",
        scoping: Society,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            cuit: Option<String> = "t.cuit" => plain,
            email: Option<String> = "t.email" => plain,
            phone_number: Option<String> = "t.phone_number" => plain,
            external_code: Option<String> = "t.external_code" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/warehouses[/{id}]`.
    Warehouses, WarehouseRow => wire::operations::Warehouse {
        name: "warehouses",
        from: "warehouses t",
        scoping: Society,
        audit: standard,
        fields {
            establishment_id: Option<i64> = "t.establishment_id" => plain,
            name: String = "t.name" => plain,
            address: Option<String> = "t.address" => plain,
            external_code: Option<String> = "t.external_code" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/voucher_types[/{id}]`; a global catalogue.
    VoucherTypes, VoucherTypeRow => wire::operations::VoucherType {
        name: "voucher_types",
        from: "voucher_types t",
        scoping: Global,
        audit: standard,
        fields {
            code: String = "t.code" => plain,
            name: String = "t.name" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/application_order_labour_types[/{id}]`; a global catalogue.
    LabourTypes, LabourTypeRow => wire::operations::LabourType {
        name: "application_order_labour_types",
        from: "labour_types t",
        scoping: Global,
        audit: standard,
        fields {
            voucher_type_id: i64 = "t.voucher_type_id" => plain,
            name: String = "t.name" => plain,
            description: String = "t.description" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v2/third_party/work_order_labour_type_attributes/{id}`: the labour types in the v2 shape.
    LabourTypeAttributes, LabourTypeAttributeRow => wire::operations::LabourTypeAttribute {
        name: "work_order_labour_type_attributes",
        from: "labour_types t",
        scoping: Global,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            description: String = "t.description" => plain,
            voucher_type_id: i64 = "t.voucher_type_id" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
            active: bool = "t.active" => plain,
        }
    }
}

crate::row_by_position! {
    /// One job row, whichever its kind: every kind reports the same status shape.
    #[derive(Debug)]
    pub struct JobRow {
        id: i64,
        status: String,
        total_items: i64,
        processed_items: i64,
        failed_items: i64,
        result: Option<String>,
        error: Option<String>,
        created_at: i64,
        started_at: Option<i64>,
        finished_at: Option<i64>,
        updated_at: i64,
    }
}

const JOB_COLUMNS: &str = "t.id, t.status, t.total_items, t.processed_items, t.failed_items, t.result, t.error, \
                           t.created_at, t.started_at, t.finished_at, t.updated_at";

fn render_job(row: JobRow, render: &Render) -> Job {
    Job {
        id: row.id,
        status: row.status,
        total_items: row.total_items,
        processed_items: row.processed_items,
        failed_items: row.failed_items,
        result: wire::operations::json_or_null(row.result.as_deref()),
        error: row.error,
        created_at: render.at(row.created_at),
        started_at: render.at_opt(row.started_at),
        finished_at: render.at_opt(row.finished_at),
        updated_at: render.at(row.updated_at),
    }
}

/// `GET /api/v2/third_party/campaigns/update_objective_yield/jobs[/{id}]`: the caller's objective-yield update jobs.
pub struct ObjectiveYieldJobs;

impl Resource for ObjectiveYieldJobs {
    type Row = JobRow;

    fn id(row: &JobRow) -> i64 {
        row.id
    }

    type Item = Job;
    type Related = ();
    const SPEC: ListSpec = ListSpec {
        name: "update_objective_yield/jobs",
        from: "jobs t",
        columns: JOB_COLUMNS,
        scoping: Scoping::Society,
        // The kind keeps the two job lists apart, in the detail as in the list (`Store::find` applies it too).
        condition: Some("t.kind = 'update_objective_yield'"),
        created: Some("t.created_at"),
        updated: Some("t.updated_at"),
        deleted: Some("t.deleted_at"),
        active: Some("t.active"),
    };

    fn render(row: JobRow, _related: (), render: &Render) -> Job {
        render_job(row, render)
    }
}

/// `GET /api/v2/third_party/campaigns/import/jobs[/{id}]`: the caller's campaign import jobs.
pub struct CampaignImportJobs;

impl Resource for CampaignImportJobs {
    type Row = JobRow;

    fn id(row: &JobRow) -> i64 {
        row.id
    }

    type Item = Job;
    type Related = ();
    const SPEC: ListSpec = ListSpec {
        name: "import/jobs",
        condition: Some("t.kind = 'campaign_import'"),
        ..ObjectiveYieldJobs::SPEC
    };

    fn render(row: JobRow, _related: (), render: &Render) -> Job {
        render_job(row, render)
    }
}

impl Store {
    /// Queues a job of `kind` (whose status resource is `R`) for the caller's society and returns its status as `R`
    /// renders it; `None` only if the job vanished between the two statements, which nothing does today.
    #[tracing::instrument(skip(self, scope, input), fields(society = scope.society_id()))]
    pub async fn start_job<R: Resource>(
        &self,
        scope: &Scope,
        kind: &str,
        input: &str,
        rows: usize,
    ) -> Result<Option<R::Item>, StoreError> {
        let total = i64::try_from(rows).unwrap_or(i64::MAX);
        let id = self.enqueue_job(scope, kind, input, total).await?;
        self.find::<R>(scope, id).await
    }
}

#[cfg(test)]
mod tests {
    use domain::jobs::{CAMPAIGN_IMPORT, UPDATE_OBJECTIVE_YIELD};

    use super::*;

    #[test]
    fn each_job_list_selects_the_kind_the_worker_stores() {
        // The conditions are literals (a `ListSpec` is const); this ties them to the kinds' single definition.
        for (condition, kind) in [
            (ObjectiveYieldJobs::SPEC.condition, UPDATE_OBJECTIVE_YIELD),
            (CampaignImportJobs::SPEC.condition, CAMPAIGN_IMPORT),
        ] {
            assert_eq!(condition, Some(format!("t.kind = '{kind}'").as_str()));
        }
    }
}
