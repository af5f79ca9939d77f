//! Housekeeping: a round purges expired tokens, old login failures, expired idempotency keys, finished jobs, settled
//! webhook deliveries and old delivery attempts past their retentions, and rate-limit buckets full again, a bounded
//! batch at a time, and keeps everything else; on PostgreSQL a purge another process is running is skipped.

use server::housekeeping::{self, HousekeepingConfig};
use sqlx::Connection;
use store::housekeeping::{Purge, Purged};

use crate::helpers::{Backend, Setup, TestApp};
use crate::on_both_backends_with;

/// A timestamp long past every retention (epoch milliseconds).
const LONG_AGO: i64 = 1_000;
/// Rows of each kind past their retention: more than one batch of the test's.
const OLD_ROWS: usize = 5;

/// No job worker and no delivery worker: the test's pending job and pending delivery must stay pending, not be
/// claimed and failed as a kind no worker knows, or abandoned for an endpoint that does not exist.
fn without_workers() -> Setup {
    let mut setup = Setup::default();
    setup.server.jobs.enabled = false;
    setup.server.webhooks.enabled = false;
    setup
}

on_both_backends_with! {
    without_workers();
    async fn a_round_purges_only_what_is_past_its_retention_a_batch_at_a_time(app) {
        let society = app.integers("SELECT min(id) FROM societies WHERE id >= $1", 0).await[0];
        let user = app.integers("SELECT min(id) FROM users WHERE society_id = $1", society).await[0];
        let later = chrono::Utc::now().timestamp_millis() + 3_600_000;
        let recent = chrono::Utc::now().timestamp_millis() - 60_000;
        for (index, when) in std::iter::repeat_n(LONG_AGO, OLD_ROWS).chain([later]).enumerate() {
            for sql in [
                format!("INSERT INTO auth_tokens (society_id, user_id, family, kind, token_hash, expires_at, created_at) \
                         VALUES ($1, {user}, 'housekeeping', 'access', 'housekeeping-{index}', {when}, {LONG_AGO})"),
                format!("INSERT INTO idempotency_keys (society_id, idempotency_key, request_hash, status, created_at, \
                         expires_at) VALUES ($1, 'housekeeping-{index}', 'hash', 201, {LONG_AGO}, {when})"),
                format!("INSERT INTO rate_limit_buckets (limit_name, limit_key, tat_us) \
                         SELECT 'token', 'housekeeping-{index}', {when} * 1000 WHERE $1 > 0"),
            ] {
                app.execute(&sql, society).await.expect("an insert");
            }
        }
        for (index, when) in std::iter::repeat_n(LONG_AGO, OLD_ROWS).chain([recent]).enumerate() {
            for sql in [
                format!("INSERT INTO login_failures (subject, failed_at) SELECT 'housekeeping', {when} WHERE $1 > 0"),
                format!("INSERT INTO jobs (society_id, kind, status, input, finished_at, created_at, updated_at) \
                         VALUES ($1, 'housekeeping', 'finished', '{{}}', {when}, {LONG_AGO}, {index})"),
                format!("INSERT INTO webhook_deliveries (society_id, endpoint_id, event_id, event_type, body, status, \
                         next_attempt_at, created_at, updated_at) VALUES ($1, 0, {index}, 'housekeeping', '{{}}', \
                         '{}', {LONG_AGO}, {LONG_AGO}, {when})", ["succeeded", "failed", "abandoned"][index % 3]),
                format!("INSERT INTO webhook_attempts (society_id, delivery_id, attempted_at, latency_ms, error) \
                         VALUES ($1, {index}, {when}, 1, 'housekeeping')"),
            ] {
                app.execute(&sql, society).await.expect("an insert");
            }
        }
        app.execute(&format!("INSERT INTO jobs (society_id, kind, status, input, created_at, updated_at) \
                              VALUES ($1, 'housekeeping', 'pending', '{{}}', {LONG_AGO}, {LONG_AGO})"), society)
            .await
            .expect("a pending job");
        app.execute(&format!("INSERT INTO webhook_deliveries (society_id, endpoint_id, event_id, event_type, body, \
                              next_attempt_at, created_at, updated_at) VALUES ($1, 0, {OLD_ROWS} + 1, 'housekeeping', \
                              '{{}}', {LONG_AGO}, {LONG_AGO}, {LONG_AGO})"), society)
            .await
            .expect("a pending delivery");

        housekeeping::round(&app.store, &HousekeepingConfig { batch: 2, ..HousekeepingConfig::default() }).await;

        let left = |sql: &'static str| app.integers(sql, society);
        assert_eq!(left("SELECT expires_at FROM auth_tokens WHERE society_id = $1 AND family = 'housekeeping'").await,
            vec![later], "only the live token is left");
        assert_eq!(left("SELECT expires_at FROM idempotency_keys WHERE society_id = $1 \
                         AND idempotency_key LIKE 'housekeeping-%'").await, vec![later], "only the live key is left");
        assert_eq!(left("SELECT tat_us / 1000 FROM rate_limit_buckets WHERE limit_key LIKE 'housekeeping-%' \
                         AND $1 > 0").await, vec![later], "only the bucket not yet full again is left");
        assert_eq!(left("SELECT failed_at FROM login_failures WHERE subject = 'housekeeping' AND $1 > 0").await,
            vec![recent], "only the recent failure is left");
        assert_eq!(left("SELECT COALESCE(finished_at, 0) FROM jobs WHERE society_id = $1 AND kind = 'housekeeping' \
                         ORDER BY 1").await, vec![0, recent], "the pending job and the recently finished one are left");
        assert_eq!(left("SELECT updated_at FROM webhook_deliveries WHERE society_id = $1 \
                         AND event_type = 'housekeeping' ORDER BY 1").await, vec![LONG_AGO, recent],
            "the pending delivery and the recently settled one are left");
        assert_eq!(left("SELECT attempted_at FROM webhook_attempts WHERE society_id = $1 AND error = 'housekeeping'")
            .await, vec![recent], "only the recent attempt is left");
    }
}

#[tokio::test]
async fn a_purge_another_process_is_running_is_skipped() {
    let app = TestApp::spawn(Backend::Postgres).await;
    let now = chrono::Utc::now().timestamp_millis();
    let mut other = testkit::postgres::connect(&app.url).await.expect("connect");
    let mut other_process = other.begin().await.expect("begin");
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(Purge::ExpiredTokens.lock_key())
        .execute(&mut *other_process)
        .await
        .expect("the purge's lock");
    assert_eq!(
        app.store.purge(Purge::ExpiredTokens, now, 10).await.expect("a purge"),
        Purged::Busy
    );
    assert!(
        matches!(
            app.store.purge(Purge::LoginFailures, now, 10).await,
            Ok(Purged::Deleted(_))
        ),
        "another purge is not held up"
    );
    other_process.rollback().await.expect("rollback");
    assert!(matches!(
        app.store.purge(Purge::ExpiredTokens, now, 10).await,
        Ok(Purged::Deleted(_))
    ));
}
