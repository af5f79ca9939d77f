//! Login and refresh (v2).

use axum::extract::State;
use axum::http::Method;
use axum::{Extension, Json};
use serde_json::json;
use store::auth::LoginRefusal;
use wire::auth::{LoginRequest, LoginResponse, RefreshRequest};

use super::table::{ApiTable, Custom};
use crate::error::ApiError;
use crate::extract::{ApiJson, ClientAddress};
use crate::i18n::Msg;
use crate::idempotency::NeverReplay;
use crate::openapi::Security;
use crate::AppState;

const TAG: &str = "Auth";

/// Registers login and refresh, which need only the system-id header.
pub fn register(mut table: ApiTable) -> ApiTable {
    let login_request = table.schema::<LoginRequest>();
    let refresh_request = table.schema::<RefreshRequest>();
    let grant = table.schema::<LoginResponse>();
    let credentials = json!({ "email": "integrador@lapampa.com.ar", "password": "LaPampa-2026" });
    table
        .custom(
            Method::POST,
            "/api/v2/login",
            login,
            Custom {
                security: Security::SystemId,
                ..Custom::write("Log in", TAG, (login_request, credentials), (200, grant.clone()))
            },
        )
        .custom(
            Method::POST,
            "/api/v2/login/refresh",
            refresh,
            Custom {
                security: Security::SystemId,
                ..Custom::write(
                    "Trade a refresh token for a new pair",
                    TAG,
                    (refresh_request, json!({ "refresh_token": "1.…" })),
                    (200, grant),
                )
            },
        )
}

/// `POST /api/v2/login`.
async fn login(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    ApiJson(body): ApiJson<LoginRequest>,
) -> Result<(Extension<NeverReplay>, Json<LoginResponse>), ApiError> {
    domain::text::check_login(&body.email, &body.password).map_err(|r| ApiError::refusal(r, "login", ""))?;
    match state.store.login(&body.email, &body.password, &address).await? {
        Ok(grant) => Ok((Extension(NeverReplay::Credentials), Json(grant.to_wire()))),
        Err(refusal) => Err(refused(refusal, Msg::BadCredentials)),
    }
}

/// `POST /api/v2/login/refresh`.
async fn refresh(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<RefreshRequest>,
) -> Result<(Extension<NeverReplay>, Json<LoginResponse>), ApiError> {
    domain::text::check_refresh_token(&body.refresh_token).map_err(|r| ApiError::refusal(r, "login", ""))?;
    match state.store.refresh(&body.refresh_token).await? {
        Ok(grant) => Ok((Extension(NeverReplay::Credentials), Json(grant.to_wire()))),
        Err(refusal) => Err(refused(refusal, Msg::InvalidRefreshToken)),
    }
}

fn refused(refusal: LoginRefusal, bad_credentials: Msg) -> ApiError {
    match refusal {
        LoginRefusal::BadCredentials => ApiError::unauthorized(bad_credentials),
        LoginRefusal::NotPermitted => ApiError::forbidden(Msg::NotPermitted),
        LoginRefusal::Throttled(retry) => ApiError::too_many_requests(Msg::Throttled(retry.as_secs().max(1)), retry),
        LoginRefusal::Busy(retry) => ApiError::unavailable_for(Msg::LoginsBusy(retry.as_secs().max(1)), retry),
    }
}
