//! Background jobs on campaigns (v2): starting an objective-yield update or a campaign import, and their status.
//!
//! A start only checks the body's shape and size and queues the job: the rows are checked and applied by the
//! worker of whichever server process claims it, and each refused row is reported in the job's `result`, in the
//! language the start's own errors would have been in, which the job records. So the answer is 202 Accepted with the
//! job's status and a `Location` to poll.

use axum::extract::State;
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use domain::jobs::{
    check_campaign_texts, lang_code, CampaignTexts, CAMPAIGN_IMPORT, MAX_JOB_ROWS, UPDATE_OBJECTIVE_YIELD,
};
use domain::Lang;
use serde::Serialize;
use serde_json::json;
use store::resources::operations::{CampaignImportJobs, ObjectiveYieldJobs};
use store::Resource;
use wire::jobs::{CampaignImport, ObjectiveYieldUpdate};

use super::table::{ApiTable, Custom};
use crate::error::ApiError;
use crate::extract::{ApiJson, Caller, V2};
use crate::i18n::Msg;
use crate::openapi::Security;
use crate::AppState;

const OBJECTIVE_YIELD: &str = "/api/v2/third_party/campaigns/update_objective_yield";
const IMPORT: &str = "/api/v2/third_party/campaigns/import";

/// The job routes.
const TAG: &str = "Campaign jobs";

/// Registers the campaign jobs' routes.
pub fn register(mut table: ApiTable) -> ApiTable {
    let job = table.schema::<wire::operations::Job>();
    let update = table.schema::<ObjectiveYieldUpdate>();
    let import = table.schema::<CampaignImport>();
    table
        .custom(
            Method::POST,
            OBJECTIVE_YIELD,
            start_objective_yield,
            Custom {
                summary: "Start a job that updates campaigns' objective yields",
                tag: TAG,
                parameters: vec![],
                body: Some((update, Some(json!({"campaigns": [{"campaign_id": 340, "objective_yield": 3.6}]})))),
                success: (202, job.clone()),
                security: Security::Caller,
            },
        )
        .custom(
            Method::POST,
            IMPORT,
            start_import,
            Custom {
                summary: "Start a job that imports campaigns",
                tag: TAG,
                parameters: vec![],
                body: Some((
                    import,
                    Some(json!({"campaigns": [{"plot_id": 27, "master_campaign_id": 2, "name": "Soja 1ra 25/26",
                        "external_code": "ERP-CMP-88", "area": 48.5, "planting_date": "2025-10-20", "objective_yield": 3.4}]})),
                )),
                success: (202, job),
                security: Security::Caller,
            },
        )
        .resource::<ObjectiveYieldJobs, V2>("/api/v2/third_party/campaigns/update_objective_yield/jobs", TAG)
        .resource::<CampaignImportJobs, V2>("/api/v2/third_party/campaigns/import/jobs", TAG)
}

/// `POST /api/v2/third_party/campaigns/update_objective_yield`: 202 with the queued job.
async fn start_objective_yield(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    ApiJson(body): ApiJson<ObjectiveYieldUpdate>,
) -> Result<impl IntoResponse, ApiError> {
    let (rows, lang) = (body.campaigns.len(), request_lang(&headers, &caller));
    start::<ObjectiveYieldJobs>(
        &state,
        &caller,
        UPDATE_OBJECTIVE_YIELD,
        OBJECTIVE_YIELD,
        &body,
        rows,
        lang,
    )
    .await
}

/// `POST /api/v2/third_party/campaigns/import`: 202 with the queued job.
async fn start_import(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    ApiJson(body): ApiJson<CampaignImport>,
) -> Result<impl IntoResponse, ApiError> {
    let texts = body.campaigns.iter().map(|row| CampaignTexts {
        name: &row.name,
        external_code: row.external_code.as_deref(),
        planting_date: row.planting_date.as_deref(),
    });
    check_campaign_texts(texts).map_err(|r| ApiError::refusal(r, "campaigns", ""))?;
    let (rows, lang) = (body.campaigns.len(), request_lang(&headers, &caller));
    start::<CampaignImportJobs>(&state, &caller, CAMPAIGN_IMPORT, IMPORT, &body, rows, lang).await
}

/// What a job's worker reads: the parsed body, and the language it reports refused rows in.
#[derive(Serialize)]
struct Input<'a, B: ?Sized> {
    #[serde(flatten)]
    body: &'a B,
    lang: &'static str,
}

/// The language the request's own errors are in (see [`crate::envelope`]): the one `Accept-Language` prefers, else
/// the caller's society's.
fn request_lang(headers: &HeaderMap, caller: &Caller) -> Lang {
    match headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|value| value.to_str().ok())
    {
        Some(asked) => Lang::negotiate(Some(asked)),
        None => domain::country::country(caller.scope.country()).map_or(Lang::Es, |country| country.language),
    }
}

/// Queues `body` as a job of `kind`, to report in `lang`, and answers 202 with its status, `Location` naming its
/// detail under `base`.
async fn start<R: Resource<Item = wire::operations::Job>>(
    state: &AppState,
    caller: &Caller,
    kind: &str,
    base: &str,
    body: &impl Serialize,
    rows: usize,
    lang: Lang,
) -> Result<impl IntoResponse, ApiError> {
    // An empty job would finish having done nothing, which is surely a mistake; the cap bounds one job's work.
    if rows == 0 || rows > MAX_JOB_ROWS {
        let msg = Msg::JobRows {
            count: rows,
            max: MAX_JOB_ROWS,
        };
        return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, msg));
    }
    // The parsed body, written back, is what the worker reads: it has the shape the worker expects.
    let input = Input {
        body,
        lang: lang_code(lang),
    };
    let input =
        serde_json::to_string(&input).map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, Msg::Internal))?;
    let job = state
        .store
        .start_job::<R>(&caller.scope, kind, &input, rows)
        .await?
        .ok_or_else(|| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, Msg::Internal))?;
    let location = format!("{base}/jobs/{}", job.id);
    Ok((StatusCode::ACCEPTED, [(header::LOCATION, location)], Json(job)))
}
