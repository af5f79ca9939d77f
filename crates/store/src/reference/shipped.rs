//! A shipped catalogue's file read: its rows parsed and checked against the catalogue's declaration, each with the
//! hash of its content, and the values each row is stored with.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use super::catalogues::{Catalogue, Column};
use crate::sql::Arg;
use crate::StoreError;

/// One row of a reference file, parsed: its key, the hash of its content, and its cells by column.
pub(super) struct ShippedRow {
    pub(super) key: String,
    pub(super) hash: String,
    pub(super) cells: Vec<String>,
}

pub(super) fn malformed(table: &str, detail: impl std::fmt::Display) -> StoreError {
    StoreError::Config(format!("reference data {table}.csv: {detail}"))
}

/// Parses one catalogue's file, checking its header against the declaration.
pub(super) fn parse(catalogue: &Catalogue, text: &str) -> Result<Vec<ShippedRow>, StoreError> {
    let table = catalogue.table;
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .map_err(|error| malformed(table, error))?
        .iter()
        .map(str::to_owned)
        .collect();
    let expected: Vec<&str> = std::iter::once("key")
        .chain(catalogue.columns.iter().map(|column| column.field()))
        .collect();
    if header != expected {
        return Err(malformed(table, format!("header is {header:?}, expected {expected:?}")));
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| malformed(table, error))?;
        let mut cells = record.iter().map(str::to_owned);
        let key = cells.next().unwrap_or_default();
        let plain_key = !key.is_empty()
            && key
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b));
        if !plain_key {
            return Err(malformed(table, format!("key {key:?} is not [a-z0-9._-]+")));
        }
        let cells: Vec<String> = cells.collect();
        let mut hash = Sha256::new();
        for cell in &cells {
            hash.update(cell.as_bytes());
            hash.update([0x1f]);
        }
        rows.push(ShippedRow {
            key,
            hash: crate::hex(&hash.finalize()),
            cells,
        });
    }
    Ok(rows)
}

/// The values a row is stored with, in the order of [`stored_columns`](super::catalogues::stored_columns).
pub(super) fn values(
    catalogue: &Catalogue,
    row: &ShippedRow,
    ids: &HashMap<&'static str, HashMap<String, i64>>,
) -> Result<Vec<Arg>, StoreError> {
    let table = catalogue.table;
    let mut values = Vec::with_capacity(catalogue.columns.len() + 3);
    for (column, cell) in catalogue.columns.iter().zip(&row.cells) {
        values.push(match *column {
            Column::Text(_) => Arg::Text(cell.clone()),
            Column::Int(name) => Arg::Int(
                cell.parse()
                    .map_err(|_| malformed(table, format!("{}: {name} {cell:?} is not an integer", row.key)))?,
            ),
            Column::Ref { .. } if cell.is_empty() => Arg::OptionalInt(None),
            Column::Ref {
                field, table: target, ..
            } => Arg::OptionalInt(Some(
                ids.get(target)
                    .and_then(|keys| keys.get(cell))
                    .copied()
                    .ok_or_else(|| malformed(table, format!("{}: {field} {cell:?} is no key of {target}", row.key)))?,
            )),
        });
    }
    if catalogue.key_is_external_code {
        values.push(Arg::Text(row.key.clone()));
    }
    values.push(Arg::Text(row.hash.clone()));
    Ok(values)
}

/// A shipped row's country and external code, for the catalogues whose live codes are unique per country.
pub(super) struct CountryCode {
    pub(super) country: String,
    pub(super) external_code: String,
}

/// Where a new shipped row may meet an operator's row with its code (imported before the release shipped it): the
/// country and code to look for. Such a row is adopted (given the key, its content kept as an operator's correction)
/// rather than inserted beside it, which the unique index of live codes would refuse.
pub(super) fn adoptable(catalogue: &Catalogue, row: &ShippedRow) -> Option<CountryCode> {
    let cell = |name: &str| {
        catalogue
            .columns
            .iter()
            .position(|column| column.field() == name)
            .and_then(|at| row.cells.get(at))
            .cloned()
    };
    let country = cell("country")?;
    let external_code = if catalogue.key_is_external_code {
        row.key.clone()
    } else {
        cell("external_code")?
    };
    Some(CountryCode { country, external_code })
}
