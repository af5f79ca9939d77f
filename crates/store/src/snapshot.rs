//! The token snapshot ([`Snapshot`]): what a society's data looked like when a request began, read with the
//! request's token from the change counters ([`society_version`], [`REFERENCE_VERSION`]) and the database's identity
//! ([`Store::instance`]).

use std::sync::Arc;

use crate::sql::{Dialect, Sql};
use crate::{row_by_position, Store, StoreError};

/// What a society's data looked like when a request began: the sum of its tables' change counters (moved by
/// every write transaction in `table_versions`), and the database's identity. The server names lists' ETags after it
/// and keys their kept answers by it.
#[derive(Debug, Clone)]
pub struct Snapshot {
    instance: Arc<str>,
    society_id: i64,
    society_version: i64,
    reference_version: i64,
}

impl Snapshot {
    /// The snapshot of society `society_id`, whose counters summed to `society_version` (see [`society_version`]),
    /// when the catalogues' counter stood at `reference_version` ([`REFERENCE_VERSION`]).
    pub(crate) fn new(instance: Arc<str>, society_id: i64, society_version: i64, reference_version: i64) -> Self {
        Self {
            instance,
            society_id,
            society_version,
            reference_version,
        }
    }

    /// The society whose data this is.
    pub fn society_id(&self) -> i64 {
        self.society_id
    }

    /// The database's identity: the same society id names another society in another database.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// The sum of the society's change counters and the catalogues' counter: it moves with every committed write of
    /// the society's data and every change of the catalogues.
    pub fn society_version(&self) -> i64 {
        self.society_version
    }

    /// The catalogues' change counter alone.
    pub fn reference_version(&self) -> i64 {
        self.reference_version
    }
}

/// The catalogues' change counter (see migration 10), as a subquery: it moves with every change of reference data.
pub(crate) const REFERENCE_VERSION: &str = "(SELECT r.version FROM reference_version r WHERE r.id = 1)";

/// The sum of every change counter of the society whose id is the column `society_id` of the enclosing query, plus
/// the catalogues' counter, as an expression: it moves with every committed write of the society's data and with
/// every change of the catalogues it reads, so a `syncCheck` made from it tells an integrator to sync either.
/// PostgreSQL keeps the sum per slot in `society_versions` (see migration 5); SQLite sums its few `table_versions`
/// rows. Only this sum is read on every request; a list that is not answered from a kept body reads its own table's
/// counter (`Store::table_version`).
pub(crate) fn society_version(dialect: Dialect, society_id: &str) -> String {
    let counters = match dialect {
        Dialect::Sqlite => "table_versions",
        Dialect::Postgres => "society_versions",
    };
    format!(
        "((SELECT CAST(COALESCE(SUM(v.version), 0) AS BIGINT) FROM {counters} v WHERE v.society_id = {society_id}) \
         + {REFERENCE_VERSION})"
    )
}

impl Store {
    /// The database's identity (its latest migration and when its schema was made), read once per process.
    pub(crate) async fn instance(&self) -> Result<Arc<str>, StoreError> {
        let instance = self
            .instance
            .get_or_try_init(|| async {
                let sql = Sql {
                    text: "SELECT MAX(version), MIN(applied_at) FROM schema_migrations".to_owned(),
                    args: Vec::new(),
                };
                let schema = self.lookup_rows::<SchemaIdentity>(&sql).await?.pop();
                let SchemaIdentity { version, applied_at } = schema.unwrap_or_default();
                Ok::<_, StoreError>(Arc::from(format!(
                    "{}.{}",
                    version.unwrap_or_default(),
                    applied_at.unwrap_or_default()
                )))
            })
            .await?;
        Ok(Arc::clone(instance))
    }
}

row_by_position! {
    /// The latest migration of the database and when its schema was made.
    #[derive(Default)]
    struct SchemaIdentity {
        version: Option<i64>,
        applied_at: Option<i64>,
    }
}
