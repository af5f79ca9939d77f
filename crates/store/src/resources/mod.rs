//! The declaration of every resource: its table, columns, scope and wire shape, and its writes where it has any.

pub mod establishments;
pub mod farmers;
pub mod field;
pub mod operations;
pub mod planning;

/// Why a write was refused: each variant is a rule of the API, answered with its own message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A required text field is empty.
    Blank(&'static str),
    /// A referenced record does not exist in the caller's society (or is deleted).
    UnknownReference {
        /// The field that refers.
        field: &'static str,
        /// The id it carries.
        id: i64,
    },
    /// The record does not exist in the caller's society.
    NotFound,
    /// The record still has live dependants of this resource, this many.
    HasDependants {
        /// The dependants' resource name.
        resource: &'static str,
        /// How many.
        count: i64,
    },
}
