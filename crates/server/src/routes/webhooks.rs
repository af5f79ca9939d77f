//! Webhook endpoints (v3): register, list, read, delete, rotate the signing secret, and read and retry deliveries.
//! The secret is in the answers of the create and of a rotation only, and those answers are never kept for an
//! `Idempotency-Key`'s replay ([`NeverReplay::Secret`]): a stored answer would hold the secret in the database, and
//! hand it to any token of the society that sent the key again. Their retries are told the write happened instead.

use std::net::IpAddr;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{Method, StatusCode};
use axum::response::IntoResponse;
use axum::{Extension, Json};
use domain::webhooks::{EndpointCommand, RefusedAddress, UrlPolicy, MAX_ENDPOINTS};
use domain::{Generation, PageWindow, Refusal, Rule, Violation};
use serde_json::json;
use store::webhooks::{NewEndpoint, WebhookEndpoints};
use url::{Host, Url};
use wire::webhooks::{WebhookDelivery, WebhookEndpointWithSecret, WebhookEndpointWrite};
use wire::Page;

use super::resources::created;
use super::table::{list_parameters, ApiTable, Custom};
use crate::error::ApiError;
use crate::extract::{parse_id, ApiJson, Caller, ListQuery, V3};
use crate::i18n::Msg;
use crate::idempotency::NeverReplay;
use crate::openapi::{id_parameter, Security};
use crate::AppState;

const NAME: &str = "webhook_endpoints";
const DELIVERIES: &str = "webhook_deliveries";
const TAG: &str = "Webhooks";
const ENDPOINTS: &str = "/api/v3/third_party/webhook_endpoints";
/// How long a create waits for the URL's host name to resolve before it judges the URL without it; every delivery
/// checks the addresses again anyway.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(3);

/// Registers the webhook routes.
pub fn register(mut table: ApiTable) -> ApiTable {
    let body = table.schema::<WebhookEndpointWrite>();
    let with_secret = table.schema::<WebhookEndpointWithSecret>();
    let deliveries = table.page_schema::<WebhookDelivery>();
    let retried = table.schema::<WebhookDelivery>();
    let example = json!({
        "url": "https://erp.example.com/tranquera/webhooks",
        "types": ["work_order.*", "plot.created"],
        "description": "ERP sync"
    });
    let page_and_size = || {
        let mut parameters = vec![id_parameter("id")];
        parameters.extend(list_parameters(Generation::V3, &[]).into_iter().take(2));
        parameters
    };
    table
        .custom(
            Method::POST,
            ENDPOINTS,
            create,
            Custom::write(
                "Register a webhook endpoint (the answer holds its signing secret, shown only now)",
                TAG,
                (body, example),
                (201, with_secret.clone()),
            ),
        )
        .resource::<WebhookEndpoints, V3>(ENDPOINTS, TAG)
        .delete::<WebhookEndpoints>(&format!("{ENDPOINTS}/{{id}}"), TAG)
        .custom(
            Method::POST,
            &format!("{ENDPOINTS}/{{id}}/rotate_secret"),
            rotate_secret,
            Custom {
                parameters: vec![id_parameter("id")],
                ..Custom::read(
                    "Give an endpoint a new signing secret; the previous one also signs deliveries for 24 hours",
                    TAG,
                    with_secret,
                )
            },
        )
        .custom(
            Method::GET,
            &format!("{ENDPOINTS}/{{id}}/deliveries"),
            list_deliveries,
            Custom {
                parameters: page_and_size(),
                ..Custom::read(
                    "List an endpoint's deliveries, newest first, each with its attempts",
                    TAG,
                    deliveries,
                )
            },
        )
        .custom(
            Method::POST,
            &format!("{ENDPOINTS}/{{id}}/deliveries/{{delivery_id}}/retry"),
            retry_delivery,
            Custom {
                summary: "Send a delivery again now",
                tag: TAG,
                parameters: vec![id_parameter("id"), id_parameter("delivery_id")],
                body: None,
                success: (202, retried),
                security: Security::Caller,
            },
        )
}

/// `POST /api/v3/third_party/webhook_endpoints`: 201 with the endpoint and its secret.
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<WebhookEndpointWrite>,
) -> Result<impl IntoResponse, ApiError> {
    let command = EndpointCommand {
        url: body.url,
        types: body.types,
        description: body.description,
    };
    let policy = state.config.webhooks.policy;
    let refuse = |refusal| ApiError::refusal(refusal, NAME, "");
    let url = command.check(policy).map_err(refuse)?;
    if let Some((address, kind)) = refused_resolution(&url, policy).await {
        let rule = Rule::AddressRefused { address, kind };
        return Err(refuse(Refusal::Invalid(vec![Violation::new("url", rule)])));
    }
    let description = command.description.as_deref().map(str::trim).filter(|d| !d.is_empty());
    let endpoint = NewEndpoint {
        url: url.as_str(),
        types: &command.types,
        description,
    };
    let record = state
        .store
        .create_webhook_endpoint(&caller.scope, &endpoint)
        .await?
        .map_err(|_| ApiError::new(StatusCode::CONFLICT, Msg::TooManyWebhookEndpoints(MAX_ENDPOINTS)))?;
    let id = record.endpoint.id;
    Ok((Extension(NeverReplay::Secret), created(ENDPOINTS, id, record)))
}

/// The kind of refused address the URL's host name resolves to, with the name (never the address: the server's DNS
/// answers are not the caller's to map), if there is one. A name that does not resolve now is accepted: it is
/// checked again at every delivery.
async fn refused_resolution(url: &Url, policy: UrlPolicy) -> Option<(String, RefusedAddress)> {
    let Some(Host::Domain(name)) = url.host() else {
        return None;
    };
    let port = url.port_or_known_default().unwrap_or(443);
    let resolved = tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((name, port))).await;
    let addresses: Vec<IpAddr> = match resolved {
        Ok(Ok(addresses)) => addresses.map(|address| address.ip()).collect(),
        Ok(Err(_)) | Err(_) => return None,
    };
    addresses
        .into_iter()
        .find_map(|address| policy.refuses(address))
        .map(|kind| (name.to_owned(), kind))
}

/// `POST …/webhook_endpoints/{id}/rotate_secret`: the endpoint with its new secret.
async fn rotate_secret(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<(Extension<NeverReplay>, Json<WebhookEndpointWithSecret>), ApiError> {
    let numeric = parse_id(&id, NAME)?;
    let rotated = state.store.rotate_webhook_secret(&caller.scope, numeric).await?;
    let rotated = rotated.ok_or_else(|| ApiError::not_found(NAME, id))?;
    Ok((Extension(NeverReplay::Secret), Json(rotated)))
}

/// `GET …/webhook_endpoints/{id}/deliveries`: one page of the endpoint's deliveries.
async fn list_deliveries(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    query: ListQuery<V3>,
) -> Result<Json<Page<WebhookDelivery>>, ApiError> {
    let numeric = parse_id(&id, NAME)?;
    let (items, total) = state
        .store
        .webhook_deliveries(&caller.scope, numeric, query.page)
        .await?
        .ok_or_else(|| ApiError::not_found(NAME, &id))?;
    let window = PageWindow::new(query.page, total, state.config.next_page)?;
    Ok(Json(Page {
        items,
        current_page: window.current_page,
        next_page: window.next_page,
        total_pages: window.total_pages,
        total_items: window.total_items,
    }))
}

/// `POST …/webhook_endpoints/{id}/deliveries/{delivery_id}/retry`: 202 with the delivery, due now.
async fn retry_delivery(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, delivery_id)): Path<(String, String)>,
) -> Result<impl IntoResponse, ApiError> {
    let endpoint = parse_id(&id, NAME)?;
    let delivery = parse_id(&delivery_id, DELIVERIES)?;
    let retried = state
        .store
        .retry_webhook_delivery(&caller.scope, endpoint, delivery)
        .await?
        .ok_or_else(|| ApiError::not_found(DELIVERIES, &delivery_id))?;
    Ok((StatusCode::ACCEPTED, Json(retried)))
}
