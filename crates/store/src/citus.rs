//! Placing the schema on a Citus cluster. When the database has the `citus` extension, every migration run ends by
//! placing the tables not yet placed: each society table distributed by `society_id`, all in one co-location group,
//! so a request's statements, which name their society, run on the one worker that holds it; the tables every node
//! reads (the catalogues, the societies and their users) copied to every node as reference tables; and the few
//! tables that must stay in one place kept on the coordinator. On a PostgreSQL without Citus, and on SQLite, nothing
//! is placed and nothing changes.
//!
//! Foreign keys decide the order. A table that refers to a reference table before it is distributed becomes a
//! Citus local table, and a distributed table cannot refer to a table still local. So the keys of the tables to place
//! are dropped, the tables placed, and the keys made again, in one transaction.

use sqlx::{PgConnection, Postgres};

use crate::metered::MeteredPool;
use crate::write::BeginWrite;
use crate::StoreError;

/// Tables every node reads, copied to each one: the catalogues (every table without a `society_id`, see
/// [`placement`]), and these two, which have one. A society's row and its users are read by every request's token
/// check on the worker that holds the society, and a login finds its user by e-mail, which is unique across
/// societies; both change only through `tranquera admin`.
const REFERENCE_SOCIETY_TABLES: &[&str] = &["societies", "users"];

/// Tables that stay on the coordinator, read and written only there: the record of applied migrations, and the
/// login-failure and rate-limit counters, which every process shares and which name no society.
const COORDINATOR_TABLES: &[&str] = &["schema_migrations", "login_failures", "rate_limit_buckets"];

/// How the tables of a database lie on its Citus cluster, after [`place`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    /// Tables distributed by `society_id`.
    pub distributed: usize,
    /// Tables copied to every node.
    pub reference: usize,
    /// Tables on the coordinator alone.
    pub coordinator: usize,
    /// Tables this run placed (the others were placed by an earlier run).
    pub placed_now: usize,
    /// The nodes that hold shards.
    pub workers: usize,
}

/// Where a table belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Distributed,
    Reference,
    Coordinator,
}

/// Where `table`, which has a `society_id` column when `has_society`, belongs.
fn placement(table: &str, has_society: bool) -> Place {
    if COORDINATOR_TABLES.contains(&table) {
        Place::Coordinator
    } else if has_society && !REFERENCE_SOCIETY_TABLES.contains(&table) {
        Place::Distributed
    } else {
        Place::Reference
    }
}

/// A foreign key as PostgreSQL prints it, to make it again after its tables are placed.
#[derive(sqlx::FromRow)]
struct ForeignKey {
    table_name: String,
    name: String,
    definition: String,
}

/// Places every table not yet placed, when the database has Citus, under the migrations' advisory `lock`; `None`
/// without it.
pub(crate) async fn place(pool: &MeteredPool<Postgres>, lock: i64) -> Result<Option<Placement>, StoreError> {
    let mut tx = pool.begin_write().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(lock)
        .execute(&mut *tx)
        .await?;
    if !has_citus(&mut tx).await? {
        return Ok(None);
    }
    let placement = place_unplaced(&mut tx).await?;
    // Every statement planned with its values, from each new connection on: Citus routes a statement by its
    // society's value, and plans no `INSERT … SELECT` on parameters (the commit's events are one).
    execute(
        &mut tx,
        "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET plan_cache_mode = force_custom_plan', \
         current_database()); END $$",
    )
    .await?;
    tx.commit().await?;
    Ok(Some(placement))
}

/// Places the tables of the database that are not placed yet, and answers how the tables lie.
async fn place_unplaced(tx: &mut PgConnection) -> Result<Placement, StoreError> {
    let workers: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM pg_dist_node WHERE noderole = 'primary' AND isactive AND shouldhaveshards \
         AND groupid <> 0",
    )
    .fetch_one(&mut *tx)
    .await?;
    if workers == 0 {
        return Err(StoreError::Config(
            "the database has the citus extension but no worker node: add them with \
             `SELECT citus_add_node('host', port)` on the coordinator, then run `tranquera migrate` again"
                .to_owned(),
        ));
    }
    let tables: Vec<(String, bool, Option<String>)> = sqlx::query_as(
        "SELECT c.relname::text, EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid \
         AND a.attname = 'society_id' AND NOT a.attisdropped), p.partmethod::text \
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
         LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid \
         WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition \
         ORDER BY c.relname",
    )
    .fetch_all(&mut *tx)
    .await?;
    let mut placement_now = Placement {
        workers: usize::try_from(workers).unwrap_or(0),
        ..Placement::default()
    };
    let mut unplaced = Vec::new();
    for (table, has_society, method) in &tables {
        let place = placement(table, *has_society);
        match place {
            Place::Distributed => placement_now.distributed += 1,
            Place::Reference => placement_now.reference += 1,
            Place::Coordinator => placement_now.coordinator += 1,
        }
        if place != Place::Coordinator && method.is_none() {
            unplaced.push((table.as_str(), place));
        }
    }
    placement_now.placed_now = unplaced.len();
    if unplaced.is_empty() {
        return Ok(placement_now);
    }
    let names: Vec<&str> = unplaced.iter().map(|(table, _)| *table).collect();
    let keys: Vec<ForeignKey> = sqlx::query_as(
        "SELECT r.relname::text AS table_name, k.conname::text AS name, pg_get_constraintdef(k.oid) AS definition \
         FROM pg_constraint k JOIN pg_class r ON r.oid = k.conrelid JOIN pg_class f ON f.oid = k.confrelid \
         WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace \
         AND (r.relname = ANY($1) OR f.relname = ANY($1)) ORDER BY r.relname, k.conname",
    )
    .bind(&names)
    .fetch_all(&mut *tx)
    .await?;
    for key in &keys {
        execute(
            &mut *tx,
            &format!(
                "ALTER TABLE {} DROP CONSTRAINT {}",
                quoted(&key.table_name),
                quoted(&key.name)
            ),
        )
        .await?;
    }
    // Reference tables first, then the distributed ones: the order Citus needs once no key ties them.
    for (table, place) in unplaced
        .iter()
        .filter(|(_, place)| *place == Place::Reference)
        .chain(unplaced.iter().filter(|(_, place)| *place == Place::Distributed))
    {
        let create = match place {
            Place::Reference => "SELECT create_reference_table($1)",
            _ => "SELECT create_distributed_table($1, 'society_id', colocate_with => 'default')",
        };
        // Citus moves shards and copies reference tables to a new node by logical replication, which carries no
        // unlogged table (an import's staging tables are unlogged on one PostgreSQL).
        execute(&mut *tx, &format!("ALTER TABLE {} SET LOGGED", quoted(table))).await?;
        sqlx::query(create).bind(table).execute(&mut *tx).await?;
        truncate_local_copy(tx, table).await?;
        tracing::info!(table, place = ?place, "placed on the Citus cluster");
    }
    for key in &keys {
        execute(
            &mut *tx,
            &format!(
                "ALTER TABLE {} ADD CONSTRAINT {} {}",
                quoted(&key.table_name),
                quoted(&key.name),
                key.definition
            ),
        )
        .await?;
    }
    Ok(placement_now)
}

/// Whether the database has the `citus` extension. A transaction that will place tables runs its DDL on one
/// connection per node, which is what Citus needs to create shards and foreign keys to reference tables in the same
/// transaction.
async fn has_citus(tx: &mut PgConnection) -> Result<bool, StoreError> {
    let citus: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')")
        .fetch_one(&mut *tx)
        .await?;
    if citus {
        execute(&mut *tx, "SET LOCAL citus.multi_shard_modify_mode TO 'sequential'").await?;
    }
    Ok(citus)
}

/// Removes the coordinator's own copy of rows that placing `table` copied to the cluster, which Citus leaves on disk.
async fn truncate_local_copy(tx: &mut PgConnection, table: &str) -> Result<(), StoreError> {
    sqlx::query("SELECT truncate_local_data_after_distributing_table($1)")
        .bind(table)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

async fn execute(connection: &mut PgConnection, statement: &str) -> Result<(), StoreError> {
    sqlx::raw_sql(statement).execute(connection).await?;
    Ok(())
}

/// A table or constraint name as an SQL identifier.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn society_tables_are_distributed_and_the_rest_copied_or_kept() {
        assert_eq!(placement("work_orders", true), Place::Distributed);
        assert_eq!(placement("events", true), Place::Distributed);
        assert_eq!(placement("users", true), Place::Reference);
        assert_eq!(placement("societies", false), Place::Reference);
        assert_eq!(placement("species", false), Place::Reference);
        assert_eq!(placement("rate_limit_buckets", false), Place::Coordinator);
        assert_eq!(placement("schema_migrations", false), Place::Coordinator);
    }
}
