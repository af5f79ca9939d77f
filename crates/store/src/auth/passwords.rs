//! Password hashes: Argon2id at the configured cost, the decoy that unknown emails are checked against, and the
//! bound on checks running at once.
//!
//! A check holds its hash's memory (19 MiB at the default cost) and a core for its whole run, so checks running at
//! once cost memory in proportion: unbounded, a burst of logins took the process to gigabytes. [`PasswordChecks`]
//! lets a few run at once (a small multiple of the cores: more would only share the same cores) on the blocking
//! threads, and a login that finds none free waits a short while, then is refused as busy.

use std::sync::Arc;
use std::time::Duration;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use rand::rngs::OsRng;
use tokio::sync::Semaphore;

use super::{AuthConfig, PasswordCost};
use crate::StoreError;

/// Hashes a password with Argon2id at `cost`.
pub fn hash_password(password: &str, cost: PasswordCost) -> Result<String, StoreError> {
    let params =
        Params::new(cost.memory_kib, cost.iterations, 1, None).map_err(|e| StoreError::Hashing(e.to_string()))?;
    let salt = SaltString::generate(&mut OsRng);
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| StoreError::Hashing(e.to_string()))
}

/// A hash of no one's password at `cost`, computed once per cost, to verify unknown emails against. Kept per cost
/// because stores of one process may hash at different costs (tests do), and a decoy must cost what an account's
/// hash costs.
pub(super) fn decoy_hash(cost: PasswordCost) -> Result<String, StoreError> {
    type Decoys = std::sync::Mutex<std::collections::HashMap<(u32, u32), String>>;
    static DECOYS: std::sync::OnceLock<Decoys> = std::sync::OnceLock::new();
    let decoys = DECOYS.get_or_init(Decoys::default);
    let key = (cost.memory_kib, cost.iterations);
    if let Some(hash) = decoys.lock().ok().and_then(|known| known.get(&key).cloned()) {
        return Ok(hash);
    }
    let hash = hash_password("no account has this password", cost)?;
    if let Ok(mut known) = decoys.lock() {
        known.entry(key).or_insert_with(|| hash.clone());
    }
    Ok(hash)
}

pub(super) fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

/// The password checks one store runs at once, shared by its clones.
#[derive(Debug, Clone)]
pub struct PasswordChecks {
    permits: Arc<Semaphore>,
    wait: Duration,
}

impl PasswordChecks {
    /// Room for `config.password_checks` at once, each waited for at most `config.password_check_wait`.
    pub fn new(config: &AuthConfig) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(config.password_checks.max(1))),
            wait: config.password_check_wait,
        }
    }

    /// Whether `password` matches `hash`, checked on a blocking thread once one of the checks is free; `None` when
    /// none came free within the wait.
    pub(super) async fn verify(&self, password: &str, hash: String) -> Option<bool> {
        let permit = tokio::time::timeout(self.wait, self.permits.clone().acquire_owned())
            .await
            .ok()?
            .ok()?;
        let password = password.to_owned();
        let verified = tokio::task::spawn_blocking(move || {
            let verified = verify_password(&password, &hash);
            drop(permit);
            verified
        });
        Some(verified.await.unwrap_or(false))
    }
}

/// Checks at once by default: two for each core the process may use.
pub(super) fn default_password_checks() -> usize {
    2 * std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_verify_only_against_their_own_hash() -> Result<(), StoreError> {
        let cost = PasswordCost {
            memory_kib: 64,
            iterations: 1,
        };
        let hash = hash_password("correct horse", cost)?;
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("correct horse", &hash));
        assert!(!verify_password("wrong horse", &hash));
        Ok(())
    }

    #[tokio::test]
    async fn a_check_past_the_bound_waits_then_gives_up() -> Result<(), StoreError> {
        let config = AuthConfig {
            password_checks: 1,
            password_check_wait: Duration::from_millis(50),
            ..AuthConfig::throwaway()
        };
        let checks = PasswordChecks::new(&config);
        let hash = hash_password("correct horse", config.password_cost)?;
        let held = checks
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| StoreError::Hashing(e.to_string()))?;
        assert_eq!(
            checks.verify("correct horse", hash.clone()).await,
            None,
            "no check free"
        );
        drop(held);
        assert_eq!(checks.verify("correct horse", hash.clone()).await, Some(true));
        assert_eq!(checks.verify("wrong horse", hash).await, Some(false));
        Ok(())
    }
}
