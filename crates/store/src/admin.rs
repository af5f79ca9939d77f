//! What operators create outside the API, which the specification says third parties cannot: societies, users,
//! farmers and API keys. The server never calls these; the `tranquera admin` command and the demo seed do.

use std::fmt;

use thiserror::Error;

use crate::auth::{digest, hash_password, new_secret};
use crate::db::{with_reader, with_writer};
use crate::render::is_known_time_zone;
use crate::resources::events::{EXTERNAL_SYSTEM, FARMER};
use crate::write::BeginWrite;
use crate::{now_millis, Scope, Store, StoreError};

/// Operator access to a store; see [`Store::admin`].
#[derive(Debug)]
pub struct Admin<'a> {
    pub(crate) store: &'a Store,
}

/// Why an operator's request was refused.
#[derive(Debug, Error)]
pub enum AdminError {
    /// The request itself is wrong; the text says how.
    #[error("{0}")]
    Invalid(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for AdminError {
    fn from(error: sqlx::Error) -> Self {
        AdminError::Store(error.into())
    }
}

/// A society as operators see it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SocietyRecord {
    /// Id.
    pub id: i64,
    /// Legal name.
    pub legal_name: String,
    /// ISO country code.
    pub country: String,
    /// IANA time zone.
    pub time_zone: String,
}

/// An account as operators list it: never its password hash, nor any of its tokens.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct UserRecord {
    /// Id.
    pub id: i64,
    /// Its society.
    pub society_id: i64,
    /// Login email.
    pub email: String,
    /// First name.
    pub name: String,
    /// Last name.
    pub lastname: Option<String>,
    /// Roles, comma-separated.
    pub roles: String,
    /// Whether it may log in.
    pub active: bool,
}

/// A new account; `Debug` redacts the password. The password stays a `String` because the demo seed builds accounts
/// from its published demo passwords.
#[derive(Clone)]
pub struct NewUser {
    /// Its society.
    pub society_id: i64,
    /// Login email; unique, compared case-insensitively.
    pub email: String,
    /// First name.
    pub name: String,
    /// Last name.
    pub lastname: Option<String>,
    /// Password, hashed with Argon2id before it is stored.
    pub password: String,
    /// Roles; `api_integrated` lets the account use the API.
    pub roles: Vec<String>,
}

impl fmt::Debug for NewUser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NewUser")
            .field("society_id", &self.society_id)
            .field("email", &self.email)
            .field("name", &self.name)
            .field("lastname", &self.lastname)
            .field("password", &format_args!("[redacted]"))
            .field("roles", &self.roles)
            .finish()
    }
}

/// A new farmer.
#[derive(Debug, Clone, Default)]
pub struct NewFarmer {
    /// Company or first name.
    pub name: String,
    /// A person's last name.
    pub lastname: Option<String>,
    /// Tax identifier.
    pub cuit: Option<String>,
    /// Free text.
    pub observations: Option<String>,
    /// Code in the integrator's ERP.
    pub external_code: Option<String>,
    /// Contact email.
    pub email: Option<String>,
    /// Contact phone.
    pub phone_number: Option<String>,
}

/// Shortest password an operator may set.
pub const MIN_PASSWORD_LEN: usize = 8;

impl Admin<'_> {
    /// Creates a society in one of the platform's countries, with the external systems the reference data gives its
    /// country; the time zone defaults to the country's.
    pub async fn create_society(
        &self,
        legal_name: &str,
        country: &str,
        time_zone: Option<&str>,
    ) -> Result<i64, AdminError> {
        let legal_name = legal_name.trim();
        if legal_name.is_empty() {
            return Err(AdminError::Invalid("the legal name must not be blank".into()));
        }
        let country = domain::country::country(country).ok_or_else(|| {
            let known: Vec<_> = domain::country::COUNTRIES.iter().map(|c| c.code).collect();
            AdminError::Invalid(format!("unknown country {country:?}; use one of {}", known.join(", ")))
        })?;
        let time_zone = time_zone.unwrap_or(country.time_zone);
        if !is_known_time_zone(time_zone) {
            return Err(AdminError::Invalid(format!(
                "unknown time zone {time_zone:?}; use an IANA name"
            )));
        }
        let systems = crate::reference::external_systems(country.code)?;
        let now = now_millis();
        let id: i64 = with_writer!(&self.store.db, pool => {
            let mut tx = pool.begin_write().await?;
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO societies (legal_name, country, time_zone, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $4) RETURNING id",
            )
            .bind(legal_name)
            .bind(country.code)
            .bind(time_zone)
            .bind(now)
            .fetch_one(&mut *tx)
            .await?;
            for (name, description) in &systems {
                let system: i64 = sqlx::query_scalar(
                    "INSERT INTO external_systems (society_id, name, description, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $4) RETURNING id",
                )
                .bind(id)
                .bind(name)
                .bind(description)
                .bind(now)
                .fetch_one(&mut *tx)
                .await?;
                tx.changed(id, &EXTERNAL_SYSTEM, [system], "created");
            }
            tx.commit().await?;
            id
        });
        Ok(id)
    }

    /// Every society.
    pub async fn societies(&self) -> Result<Vec<SocietyRecord>, AdminError> {
        Ok(with_reader!(&self.store.db, pool => {
            sqlx::query_as("SELECT id, legal_name, country, time_zone FROM societies ORDER BY id").fetch_all(pool).await?
        }))
    }

    /// Every account, or a society's, by id. The columns are named one by one, so a secret column never leaks in.
    pub async fn users(&self, society_id: Option<i64>) -> Result<Vec<UserRecord>, AdminError> {
        Ok(with_reader!(&self.store.db, pool => {
            sqlx::query_as(
                "SELECT id, society_id, email, name, lastname, roles, active FROM users \
                 WHERE $1 IS NULL OR society_id = $1 ORDER BY id",
            )
            .bind(society_id)
            .fetch_all(pool)
            .await?
        }))
    }

    /// The scope of a society, for operator tools that act for it.
    pub async fn scope(&self, society_id: i64) -> Result<Scope, AdminError> {
        let society: Option<(String, String)> = with_reader!(&self.store.db, pool => {
            sqlx::query_as("SELECT country, time_zone FROM societies WHERE id = $1")
                .bind(society_id)
                .fetch_optional(pool)
                .await?
        });
        society
            .map(|(country, time_zone)| Scope::new(society_id, &country, &time_zone))
            .ok_or_else(|| AdminError::Invalid(format!("there is no society {society_id}")))
    }

    /// Creates an account.
    pub async fn create_user(&self, user: &NewUser) -> Result<i64, AdminError> {
        self.scope(user.society_id).await?;
        let email = user.email.trim().to_lowercase();
        if !email.contains('@') {
            return Err(AdminError::Invalid(format!("{email:?} is not an email address")));
        }
        if user.password.chars().count() < MIN_PASSWORD_LEN {
            return Err(AdminError::Invalid(format!(
                "the password must have at least {MIN_PASSWORD_LEN} characters"
            )));
        }
        // A login refuses longer ones, so an account with one could never log in.
        for (what, text, max) in [
            ("email", email.as_str(), domain::text::MAX_EMAIL),
            ("password", user.password.as_str(), domain::text::MAX_PASSWORD),
        ] {
            if domain::text::too_long(text, max) {
                let refusal = format!("the {what} must have at most {max} characters");
                return Err(AdminError::Invalid(refusal));
            }
        }
        let cost = self.store.config.auth.password_cost;
        let password = user.password.clone();
        let hash = tokio::task::spawn_blocking(move || hash_password(&password, cost))
            .await
            .map_err(|e| AdminError::Invalid(e.to_string()))??;
        let roles = user
            .roles
            .iter()
            .map(|r| r.trim())
            .filter(|r| !r.is_empty())
            .collect::<Vec<_>>()
            .join(",");
        let now = now_millis();
        let inserted: Option<i64> = with_writer!(&self.store.db, pool => {
            let mut tx = pool.begin_write().await?;
            let inserted: Option<i64> = sqlx::query_scalar(
                "INSERT INTO users (society_id, email, name, lastname, password_hash, roles, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (email) DO NOTHING RETURNING id",
            )
            .bind(user.society_id)
            .bind(&email)
            .bind(user.name.trim())
            .bind(user.lastname.as_deref())
            .bind(hash)
            .bind(roles)
            .bind(now)
            .fetch_optional(&mut *tx)
            .await?;
            if inserted.is_some() {
                tx.counted(user.society_id, "users");
            }
            tx.commit().await?;
            inserted
        });
        inserted.ok_or_else(|| AdminError::Invalid(format!("an account with email {email} already exists")))
    }

    /// Replaces an account's roles; taking `api_integrated` away makes its live tokens answer 403.
    pub async fn set_roles(&self, email: &str, roles: &[String]) -> Result<(), AdminError> {
        let email = email.trim().to_lowercase();
        let roles = roles
            .iter()
            .map(|r| r.trim())
            .filter(|r| !r.is_empty())
            .collect::<Vec<_>>()
            .join(",");
        let updated: Option<i64> = with_writer!(&self.store.db, pool => {
            let mut tx = pool.begin_write().await?;
            let updated = sqlx::query_scalar("UPDATE users SET roles = $2, updated_at = $3 WHERE email = $1 RETURNING society_id")
                .bind(&email)
                .bind(roles)
                .bind(now_millis())
                .fetch_optional(&mut *tx)
                .await?;
            if let Some(society_id) = updated {
                tx.counted(society_id, "users");
            }
            tx.commit().await?;
            updated
        });
        if updated.is_none() {
            return Err(AdminError::Invalid(format!("there is no account with email {email}")));
        }
        Ok(())
    }

    /// Creates a farmer in a society.
    pub async fn create_farmer(&self, society_id: i64, farmer: &NewFarmer) -> Result<i64, AdminError> {
        self.scope(society_id).await?;
        if farmer.name.trim().is_empty() {
            return Err(AdminError::Invalid("the farmer's name must not be blank".into()));
        }
        let now = now_millis();
        // In the form the API's writes and the import store codes in.
        let normal = domain::text::code(farmer.external_code.as_deref());
        let external_code = normal.as_deref();
        let inserted: Result<i64, sqlx::Error> = with_writer!(&self.store.db, pool => {
            let mut tx = pool.begin_write().await?;
            let inserted = sqlx::query_scalar(
                "INSERT INTO farmers (society_id, name, lastname, cuit, observations, external_code, email, \
                 phone_number, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING id",
            )
            .bind(society_id)
            .bind(farmer.name.trim())
            .bind(farmer.lastname.as_deref())
            .bind(farmer.cuit.as_deref())
            .bind(farmer.observations.as_deref())
            .bind(external_code)
            .bind(farmer.email.as_deref())
            .bind(farmer.phone_number.as_deref())
            .bind(now)
            .fetch_one(&mut *tx)
            .await;
            if let Ok(id) = inserted {
                tx.changed(society_id, &FARMER, [id], "created");
                tx.commit().await?;
            }
            inserted
        });
        let id = match inserted {
            Ok(id) => id,
            Err(error) => {
                let holder = self
                    .store
                    .taken_code(error, "farmers", society_id, external_code, None)
                    .await?;
                return Err(AdminError::Invalid(format!(
                    "farmer {holder} of society {society_id} already has external code {:?}",
                    external_code.unwrap_or_default()
                )));
            }
        };
        Ok(id)
    }

    /// Revokes every live token of an account; returns how many were revoked.
    pub async fn revoke_tokens(&self, email: &str) -> Result<u64, AdminError> {
        let email = email.trim().to_lowercase();
        let now = now_millis();
        let outcome: Option<u64> = with_writer!(&self.store.db, pool => {
            let mut tx = pool.begin_write().await?;
            let user: Option<(i64, i64)> = sqlx::query_as("SELECT id, society_id FROM users WHERE email = $1")
                .bind(&email)
                .fetch_optional(&mut *tx)
                .await?;
            match user {
                None => None,
                Some((user_id, society_id)) => {
                    let revoked = sqlx::query(
                        "UPDATE auth_tokens SET revoked_at = $3 WHERE society_id = $1 AND user_id = $2 AND revoked_at IS NULL",
                    )
                    .bind(society_id)
                    .bind(user_id)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                    tx.commit().await?;
                    Some(revoked)
                }
            }
        });
        outcome.ok_or_else(|| AdminError::Invalid(format!("there is no account with email {email}")))
    }

    /// Issues an API key for a society (the optional `X-SVC-APIKEY` header); the key is shown only now.
    pub async fn create_api_key(&self, society_id: i64, label: &str) -> Result<String, AdminError> {
        self.scope(society_id).await?;
        let key = new_secret(society_id);
        let now = now_millis();
        with_writer!(&self.store.db, pool => {
            sqlx::query("INSERT INTO api_keys (society_id, label, key_hash, created_at) VALUES ($1, $2, $3, $4)")
                .bind(society_id)
                .bind(label.trim())
                .bind(digest(&key))
                .bind(now)
                .execute(pool)
                .await?;
        });
        Ok(key)
    }
}

#[cfg(test)]
mod tests {
    use secrecy::SecretString;

    use super::NewUser;
    use crate::auth::{Grant, SocietyInfo};
    use crate::Scope;

    #[test]
    fn debug_output_redacts_every_password_and_token() {
        let user = NewUser {
            society_id: 1,
            email: "a@b.ar".into(),
            name: "Ana".into(),
            lastname: None,
            password: "password-secret".into(),
            roles: vec![],
        };
        let grant = Grant {
            access_token: SecretString::from("access-secret"),
            refresh_token: SecretString::from("refresh-secret"),
            expires_at: 0,
            society: SocietyInfo {
                id: 1,
                legal_name: "La Pampa".into(),
                sync_check: "1-2".into(),
                scope: Scope::new(1, "AR", "America/Argentina/Buenos_Aires"),
            },
        };
        for text in [format!("{user:?}"), format!("{grant:?}")] {
            assert!(!text.contains("secret"), "{text}");
            assert!(text.to_ascii_lowercase().contains("redacted"), "{text}");
        }
    }
}
