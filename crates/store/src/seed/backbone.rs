//! Demo data of the backbone group.

use super::SocietySeed;
use crate::admin::AdminError;
use crate::Store;

/// Seeds the backbone group's global catalogues.
pub(crate) async fn global(_store: &Store, _origin: i64) -> Result<(), AdminError> {
    Ok(())
}

/// Seeds the backbone group's data of one society.
pub(crate) async fn society(_store: &Store, _society: &SocietySeed) -> Result<(), AdminError> {
    Ok(())
}
