//! Login and refresh.

use axum::extract::State;
use axum::{Extension, Json};
use store::auth::Refusal;
use wire::auth::{LoginRequest, LoginResponse, RefreshRequest};

use crate::error::ApiError;
use crate::extract::{ApiJson, ClientAddress};
use crate::i18n::Msg;
use crate::idempotency::NeverReplay;
use crate::AppState;

/// `POST /api/v2/login`.
pub async fn login(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    ApiJson(body): ApiJson<LoginRequest>,
) -> Result<(Extension<NeverReplay>, Json<LoginResponse>), ApiError> {
    match state.store.login(&body.email, &body.password, &address).await? {
        Ok(grant) => Ok((Extension(NeverReplay), Json(grant.to_wire()))),
        Err(refusal) => Err(refused(refusal, Msg::BadCredentials)),
    }
}

/// `POST /api/v2/login/refresh`.
pub async fn refresh(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<RefreshRequest>,
) -> Result<(Extension<NeverReplay>, Json<LoginResponse>), ApiError> {
    match state.store.refresh(&body.refresh_token).await? {
        Ok(grant) => Ok((Extension(NeverReplay), Json(grant.to_wire()))),
        Err(refusal) => Err(refused(refusal, Msg::InvalidRefreshToken)),
    }
}

fn refused(refusal: Refusal, bad_credentials: Msg) -> ApiError {
    match refusal {
        Refusal::BadCredentials => ApiError::unauthorized(bad_credentials),
        Refusal::NotPermitted => ApiError::forbidden(Msg::NotPermitted),
        Refusal::Throttled(retry) => ApiError::too_many_requests(Msg::Throttled(retry.as_secs().max(1)), retry),
    }
}
