//! The rate limits' buckets that every server process shares: for each limit and key, when the bucket is full again
//! (GCRA's theoretical arrival time, epoch microseconds), with every process's accepted requests counted. Processes
//! decide each request in memory and add what they accepted here a few times a second (the server's `ratelimit`).

use crate::db::{bind_args, with_writer, Arg, Dialect, Sql};
use crate::{Store, StoreError};

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
        let buckets = with_writer!(&self.db, pool => {
            bind_args!(sqlx::query_as::<_, (String, i64)>(&sql.text), &sql.args).fetch_all(pool).await?
        });
        Ok(buckets)
    }
}
