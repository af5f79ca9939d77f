//! Login by email and password, and its throttle: failed logins per account and per client address within a window.
//!
//! An attempt is counted before its password is checked, not after: the count and a row of `login_failures` for each
//! of its subjects are one transaction, serialised per subject (on PostgreSQL by a transaction-level advisory lock
//! per subject, which every process on the database sees; SQLite has one writer). Attempts in flight are therefore
//! counted as failures already, and of any number sent at once only the limit's worth reach the password check. A
//! success takes its rows back and clears the account's count; an attempt that no check came free for takes its rows
//! back too; a failure leaves them, and they are its record.

use std::time::Duration;

use crate::db::with_writer;
use crate::snapshot::society_version;
use crate::sql::{Arg, Dialect, Sql};
use crate::write::BeginWrite;
use crate::{now_millis, Scope, Store, StoreError};

use super::passwords::decoy_hash;
use super::{has_api_role, millis, new_secret, sync_check, Grant, LoginRefusal, SocietyInfo};

/// The advisory lock space of login subjects (the first key of PostgreSQL's two-key advisory locks; the second is
/// the subject's hash). Two-key locks never collide with the one-key locks of housekeeping.
const SUBJECT_LOCKS: i32 = 0x7472_6c67;

crate::row_by_position! {
    /// A login's account and its society.
    struct Account {
        id: i64,
        society_id: i64,
        password_hash: String,
        roles: String,
        active: bool,
        legal_name: String,
        country: String,
        time_zone: String,
    }
}

crate::row_by_position! {
    /// The society's data version, for the grant's `syncCheck`.
    struct DataVersion {
        version: i64,
    }
}

/// The rows an attempt reserved, one per subject, to be taken back unless it failed.
struct Reserved(Vec<i64>);

impl Store {
    /// Logs in with email and password from `address`; issues a new token family.
    #[tracing::instrument(skip(self, password))]
    pub async fn login(
        &self,
        email: &str,
        password: &str,
        address: &str,
    ) -> Result<Result<Grant, LoginRefusal>, StoreError> {
        let config = &self.config.auth;
        let email = email.trim().to_lowercase();
        let subjects = [format!("account:{email}"), format!("address:{address}")];
        let reserved = match self.reserve_attempt(&subjects).await? {
            Ok(reserved) => reserved,
            Err(retry) => return Ok(Err(LoginRefusal::Throttled(retry))),
        };
        let sql = Sql {
            text:
                "SELECT u.id, u.society_id, u.password_hash, u.roles, u.active, s.legal_name, s.country, s.time_zone \
                   FROM users u JOIN societies s ON s.id = u.society_id WHERE u.email = $1"
                    .to_owned(),
            args: vec![Arg::Text(email.clone())],
        };
        let account: Option<Account> = self.lookup_rows(&sql).await?.pop();
        // An unknown email costs the same hash check as a wrong password, so timing does not reveal accounts.
        let stored_hash = match &account {
            Some(account) => account.password_hash.clone(),
            None => decoy_hash(config.password_cost)?,
        };
        let Some(verified) = self.password_checks.verify(password, stored_hash).await else {
            self.take_back(&reserved).await?;
            return Ok(Err(LoginRefusal::Busy(self.password_checks_wait())));
        };
        let account = match account {
            Some(account) if verified => account,
            // The reserved rows stay: they record this failure.
            _ => return Ok(Err(LoginRefusal::BadCredentials)),
        };
        if !account.active || !has_api_role(&account.roles) {
            self.take_back(&reserved).await?;
            return Ok(Err(LoginRefusal::NotPermitted));
        }
        // Read once the society is known, so that the statement names it (on Citus, it runs on its worker alone).
        let version = Sql {
            text: format!("SELECT {}", society_version(self.db.dialect(), "$1")),
            args: vec![Arg::Int(account.society_id)],
        };
        let data_version = self
            .lookup_rows::<DataVersion>(&version)
            .await?
            .pop()
            .map_or(0, |row| row.version);
        let family = new_secret(account.society_id);
        let (access, refresh, expires_at) = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            sqlx::query("DELETE FROM login_failures WHERE subject = $1").bind(&subjects[0]).execute(&mut *tx).await?;
            for id in &reserved.0 {
                sqlx::query("DELETE FROM login_failures WHERE id = $1").bind(id).execute(&mut *tx).await?;
            }
            let pair = issue_pair!(tx, config, account.society_id, account.id, &family);
            tx.commit().await?;
            pair
        });
        Ok(Ok(Grant {
            access_token: access.into(),
            refresh_token: refresh.into(),
            expires_at,
            society: SocietyInfo {
                id: account.society_id,
                legal_name: account.legal_name,
                sync_check: sync_check(account.society_id, data_version),
                scope: Scope::new(account.society_id, &account.country, &account.time_zone),
            },
        }))
    }

    /// Counts each subject's failures within the window and, when none is at its limit, records the attempt as a
    /// failure of each, in one transaction that holds each subject's lock; at a limit, how long until the oldest
    /// failure leaves the window. Older failures are deleted on the way.
    async fn reserve_attempt(&self, subjects: &[String; 2]) -> Result<Result<Reserved, Duration>, StoreError> {
        let config = &self.config.auth;
        let limits = [config.max_failures_per_account, config.max_failures_per_address];
        let now = now_millis();
        let window_start = now - millis(config.failure_window);
        let dialect = self.db.dialect();
        // One order for every process, so that two attempts never wait on each other's locks in opposite orders.
        let mut locks: Vec<&String> = subjects.iter().collect();
        locks.sort();
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            if dialect == Dialect::Postgres {
                for subject in locks {
                    sqlx::query("SELECT pg_advisory_xact_lock($1, hashtext($2))")
                        .bind(SUBJECT_LOCKS)
                        .bind(subject)
                        .execute(&mut *tx)
                        .await?;
                }
            }
            for (subject, limit) in subjects.iter().zip(limits) {
                let (count, oldest): (i64, Option<i64>) = sqlx::query_as(
                    "SELECT COUNT(*), MIN(failed_at) FROM login_failures WHERE subject = $1 AND failed_at >= $2",
                )
                .bind(subject)
                .bind(window_start)
                .fetch_one(&mut *tx)
                .await?;
                if count >= limit {
                    let retry_ms = oldest.unwrap_or(now) + millis(config.failure_window) - now;
                    let retry = Duration::from_millis(u64::try_from(retry_ms).unwrap_or(0)).max(Duration::from_secs(1));
                    return Ok(Err(retry));
                }
            }
            sqlx::query("DELETE FROM login_failures WHERE failed_at < $1").bind(window_start).execute(&mut *tx).await?;
            let mut reserved = Vec::with_capacity(subjects.len());
            for subject in subjects {
                let id: i64 = sqlx::query_scalar("INSERT INTO login_failures (subject, failed_at) VALUES ($1, $2) RETURNING id")
                    .bind(subject)
                    .bind(now)
                    .fetch_one(&mut *tx)
                    .await?;
                reserved.push(id);
            }
            tx.commit().await?;
            Ok(Ok(Reserved(reserved)))
        })
    }

    /// Deletes the rows an attempt reserved: it did not fail.
    async fn take_back(&self, reserved: &Reserved) -> Result<(), StoreError> {
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            for id in &reserved.0 {
                sqlx::query("DELETE FROM login_failures WHERE id = $1").bind(id).execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// What a login refused as busy is told to wait: the wait it gave up after, at least a second.
    fn password_checks_wait(&self) -> Duration {
        self.config.auth.password_check_wait.max(Duration::from_secs(1))
    }
}
