//! The rate limits' buckets that every server process shares: for each limit and key, when the bucket is full again
//! (GCRA's theoretical arrival time, epoch microseconds), with every process's accepted requests counted. Processes
//! decide each request in memory and add what they accepted here a few times a second (the server's `ratelimit`).
//!
//! A bucket full again (its time past) is the same as none. Each charge deletes spent rows, as many as it may add and
//! [`SPENT_PER_CHARGE`] more, so spent rows never pile up, however many clients come and go: the table holds the
//! buckets of the clients of the last moments (a burst's refill), and only of keys the server accepted requests for
//! (addresses, and tokens that authenticated). Housekeeping's purge of spent buckets is then a backstop.

use crate::db::with_writer;
use crate::sql::{bind_args, Arg, Dialect, Sql};
use crate::{Store, StoreError};

/// Spent rows a charge deletes beyond as many as it has keys.
const SPENT_PER_CHARGE: i64 = 1_000;

impl Store {
    /// Adds `charges` (a key, and the requests accepted for it since the last charge) to the shared buckets of
    /// `limit`, each request worth `emission_us`, at `now_us`; answers each key's bucket after it (in no particular
    /// order), every process's requests counted. A bucket past its time starts again from `now_us`.
    pub async fn charge_rate_limit(
        &self,
        limit: &str,
        emission_us: i64,
        now_us: i64,
        charges: &[(String, u32)],
    ) -> Result<Vec<(String, i64)>, StoreError> {
        if charges.is_empty() {
            return Ok(Vec::new());
        }
        let later = match self.db.dialect() {
            Dialect::Sqlite => "MAX",
            Dialect::Postgres => "GREATEST",
        };
        let mut sql = Sql::default();
        sql.push("INSERT INTO rate_limit_buckets (limit_name, limit_key, tat_us) VALUES ");
        for (index, (key, requests)) in charges.iter().enumerate() {
            if index > 0 {
                sql.push(", ");
            }
            let charge = emission_us.saturating_mul(i64::from(*requests));
            sql.row([
                Arg::Text(limit.to_owned()),
                Arg::Text(key.clone()),
                Arg::Int(now_us.saturating_add(charge)),
            ]);
        }
        // The inserted value is `now + charge`: an existing bucket gets the charge on top of its time, or of now
        // when its time has passed.
        sql.push_with(
            &format!(
                " ON CONFLICT (limit_name, limit_key) DO UPDATE SET \
                 tat_us = {later}(rate_limit_buckets.tat_us, ?) + (excluded.tat_us - ?) RETURNING limit_key, tat_us"
            ),
            &[Arg::Int(now_us), Arg::Int(now_us)],
        );
        // Spent rows in the order of their index; on PostgreSQL, rows another process holds are left to it, so that
        // a deletion never waits on a charge that waits on it.
        let spent = match self.db.dialect() {
            Dialect::Sqlite => {
                "DELETE FROM rate_limit_buckets WHERE rowid IN \
                 (SELECT rowid FROM rate_limit_buckets WHERE tat_us < $1 ORDER BY tat_us LIMIT $2)"
            }
            Dialect::Postgres => {
                "DELETE FROM rate_limit_buckets WHERE (limit_name, limit_key) IN \
                 (SELECT limit_name, limit_key FROM rate_limit_buckets WHERE tat_us < $1 ORDER BY tat_us LIMIT $2 \
                 FOR UPDATE SKIP LOCKED)"
            }
        };
        let most = i64::try_from(charges.len())
            .unwrap_or(i64::MAX)
            .saturating_add(SPENT_PER_CHARGE);
        let buckets = with_writer!(&self.db, pool => {
            sqlx::query(spent).bind(now_us).bind(most).execute(pool).await?;
            bind_args!(sqlx::query_as::<_, (String, i64)>(&sql.text), &sql.args).fetch_all(pool).await?
        });
        Ok(buckets)
    }
}
