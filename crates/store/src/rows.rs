//! Rows decoded by position, for each driver that reads them: SQLite's own interface on the request's thread
//! ([`FromSqliteRow`], see [`crate::inline`]), `tokio-postgres` for PostgreSQL's request reads ([`FromPgRow`], see
//! [`crate::pg_readers`]), and sqlx's `FromRow` for writes and background work. [`row_by_position!`](crate::row_by_position)
//! writes all three for a row struct.

use tokio_postgres::types::{FromSql, Type};
use tokio_postgres::Row;

/// A row read through SQLite's own interface (`rusqlite`), column by column in the order selected: what the reads
/// that run on the request's thread decode (see [`crate::inline`]). [`row_by_position!`](crate::row_by_position)
/// writes it.
pub trait FromSqliteRow: Sized {
    /// The row's fields from `row`'s columns, in order.
    fn from_sqlite_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Self>;
}

/// Declares a row struct that reads its fields from the columns in declaration order (so the struct's fields must be
/// in the order its statements select them): its [`FromSqliteRow`], its [`FromPgRow`] for PostgreSQL's request reads
/// ([`crate::pg_readers`]), and sqlx's `FromRow` for either backend, which the writes and background work use. sqlx's
/// derived `FromRow` looks every column up by name, and checks each column's declared type against the field's
/// before decoding it: each a noticeable part of an uncached PostgreSQL page's time in the server. The statements are
/// declared beside their rows, and the suite reads every resource on both backends, so the check is left out
/// (`try_get_unchecked`); a value that does not decode as its field still fails.
#[macro_export]
macro_rules! row_by_position {
    (
        $(#[$meta:meta])*
        $vis:vis struct $row:ident { $($(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty),* $(,)? }
    ) => {
        $(#[$meta])*
        $vis struct $row { $($(#[$field_meta])* $field_vis $field: $ty,)* }

        impl $crate::rows::FromSqliteRow for $row {
            fn from_sqlite_row(row: &::rusqlite::Row<'_>) -> ::rusqlite::Result<Self> {
                let mut column = 0;
                Ok(Self {
                    $($field: {
                        column += 1;
                        row.get(column - 1)?
                    },)*
                })
            }
        }

        impl $crate::rows::FromPgRow for $row {
            fn from_pg_row(
                row: &::tokio_postgres::Row,
            ) -> ::std::result::Result<Self, $crate::rows::ColumnError> {
                let mut column = 0;
                Ok(Self {
                    $($field: {
                        column += 1;
                        $crate::rows::column(row, column - 1)?
                    },)*
                })
            }
        }

        impl<'r, R: ::sqlx::Row> ::sqlx::FromRow<'r, R> for $row
        where
            usize: ::sqlx::ColumnIndex<R>,
            $($ty: ::sqlx::Decode<'r, R::Database>,)*
        {
            fn from_row(row: &'r R) -> ::std::result::Result<Self, ::sqlx::Error> {
                let mut column = 0;
                Ok(Self {
                    $($field: {
                        column += 1;
                        row.try_get_unchecked(column - 1)?
                    },)*
                })
            }
        }
    };
}

/// A row decoded column by column in the order selected. [`row_by_position!`](crate::row_by_position) writes it.
/// `Send`, as the rows of a page are gathered inside the read's future, which moves between threads.
pub trait FromPgRow: Sized + Send {
    /// The row's fields from `row`'s columns, in order.
    fn from_pg_row(row: &Row) -> Result<Self, ColumnError>;
}

/// A column that could not become its field.
#[derive(Debug, thiserror::Error)]
pub enum ColumnError {
    /// The statement selected fewer columns than the row has fields.
    #[error("column {0} was not selected")]
    Missing(usize),
    /// NULL, for a field that cannot be absent.
    #[error("column {0} is null")]
    Null(usize),
    /// A value whose binary form is not the field's type.
    #[error("column {0} does not decode as {1}")]
    Type(usize, &'static str),
}

/// One field's value from PostgreSQL's binary form of a column, as sqlx's unchecked decoding read it: an integer
/// of any width, a float of either, whatever the column's declared type. Written here because `tokio-postgres`'s
/// own decoding refuses an `integer` column for an `i64` field, and the rows were declared for sqlx.
pub trait PgColumn: Sized {
    /// The value from its bytes; `None` is NULL. `column` names the column in an error.
    fn decode(column: usize, bytes: Option<&[u8]>) -> Result<Self, ColumnError>;
}

impl PgColumn for i64 {
    fn decode(column: usize, bytes: Option<&[u8]>) -> Result<Self, ColumnError> {
        match *bytes.ok_or(ColumnError::Null(column))? {
            [a, b, c, d, e, f, g, h] => Ok(i64::from_be_bytes([a, b, c, d, e, f, g, h])),
            [a, b, c, d] => Ok(i64::from(i32::from_be_bytes([a, b, c, d]))),
            [a, b] => Ok(i64::from(i16::from_be_bytes([a, b]))),
            _ => Err(ColumnError::Type(column, "an integer")),
        }
    }
}

impl PgColumn for f64 {
    fn decode(column: usize, bytes: Option<&[u8]>) -> Result<Self, ColumnError> {
        match *bytes.ok_or(ColumnError::Null(column))? {
            [a, b, c, d, e, f, g, h] => Ok(f64::from_be_bytes([a, b, c, d, e, f, g, h])),
            [a, b, c, d] => Ok(f64::from(f32::from_be_bytes([a, b, c, d]))),
            _ => Err(ColumnError::Type(column, "a float")),
        }
    }
}

impl PgColumn for bool {
    fn decode(column: usize, bytes: Option<&[u8]>) -> Result<Self, ColumnError> {
        match *bytes.ok_or(ColumnError::Null(column))? {
            [byte] => Ok(byte != 0),
            _ => Err(ColumnError::Type(column, "a boolean")),
        }
    }
}

impl PgColumn for String {
    fn decode(column: usize, bytes: Option<&[u8]>) -> Result<Self, ColumnError> {
        let bytes = bytes.ok_or(ColumnError::Null(column))?;
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|_| ColumnError::Type(column, "text"))
    }
}

/// An `int8[]` (a list's ids in one value, for its page index), through tokio-postgres's array decoding.
impl PgColumn for Vec<i64> {
    fn decode(column: usize, bytes: Option<&[u8]>) -> Result<Self, ColumnError> {
        let bytes = bytes.ok_or(ColumnError::Null(column))?;
        <Vec<i64> as FromSql>::from_sql(&Type::INT8_ARRAY, bytes)
            .map_err(|_| ColumnError::Type(column, "an array of bigint"))
    }
}

impl<T: PgColumn> PgColumn for Option<T> {
    fn decode(column: usize, bytes: Option<&[u8]>) -> Result<Self, ColumnError> {
        bytes.map(|bytes| T::decode(column, Some(bytes))).transpose()
    }
}

/// A column's bytes as PostgreSQL sent them, whatever its type, for [`PgColumn`] to decode.
struct ColumnBytes<'a>(Option<&'a [u8]>);

impl<'a> FromSql<'a> for ColumnBytes<'a> {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Self(Some(raw)))
    }

    fn from_sql_null(_: &Type) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Self(None))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// Column `index` of `row` as `T`.
pub fn column<T: PgColumn>(row: &Row, index: usize) -> Result<T, ColumnError> {
    let bytes: ColumnBytes<'_> = row.try_get(index).map_err(|_| ColumnError::Missing(index))?;
    T::decode(index, bytes.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_of_every_width_and_floats_of_either_decode_as_sqlx_read_them() {
        assert_eq!(i64::decode(0, Some(&(-5_i64).to_be_bytes())).ok(), Some(-5));
        assert_eq!(i64::decode(0, Some(&(-5_i32).to_be_bytes())).ok(), Some(-5));
        assert_eq!(i64::decode(0, Some(&7_i16.to_be_bytes())).ok(), Some(7));
        assert_eq!(f64::decode(0, Some(&45.25_f64.to_be_bytes())).ok(), Some(45.25));
        assert_eq!(f64::decode(0, Some(&0.5_f32.to_be_bytes())).ok(), Some(0.5));
        assert_eq!(bool::decode(0, Some(&[1])).ok(), Some(true));
        assert_eq!(String::decode(0, Some("Ação".as_bytes())).ok().as_deref(), Some("Ação"));
        assert_eq!(Option::<i64>::decode(0, None).ok(), Some(None));
    }

    #[test]
    fn null_and_foreign_values_are_refused_with_their_column() {
        assert!(matches!(i64::decode(3, None), Err(ColumnError::Null(3))));
        assert!(matches!(i64::decode(2, Some(&[1, 2, 3])), Err(ColumnError::Type(2, _))));
        assert!(matches!(
            String::decode(1, Some(&[0xff, 0xfe])),
            Err(ColumnError::Type(1, _))
        ));
        assert!(matches!(bool::decode(0, Some(&[0, 1])), Err(ColumnError::Type(0, _))));
    }
}
