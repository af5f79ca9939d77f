//! Operator imports of master data (`tranquera admin import`): how a file's header names a resource's fields, how a
//! cell is read into a value, and the rules each value meets. The rules are the functions the API's writes use
//! ([`check_required`], [`check_hectares`], [`check_objective_yield`], and [`text`]'s bounds and code rules), so an
//! imported row is held to what a write of it would be, and its codes are compared in the form the API stores. Whether a referenced record is live, and whether an external code is taken, is the store's to find.

use chrono::NaiveDate;

use crate::jobs::{check_objective_yield, MAX_OBJECTIVE_YIELD};
use crate::refusal::{check_hectares, check_required, positive, Expected, Refusal, Rule, Violation};
use crate::text::{self, Text};

/// The header name of the key every imported row is matched by.
pub const EXTERNAL_CODE: &str = "external_code";
/// The header name of the optional column that marks a row as a deletion.
pub const DELETED: &str = "deleted";
/// Problems a report names; the rest are counted.
pub const REPORTED_PROBLEMS: usize = 200;
/// Model years a machine may state.
const YEARS: (i64, i64) = (1900, 2100);

/// How a field's cells are read and checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Text, trimmed; blank is none.
    Text,
    /// Hectares: a positive number within [`crate::MAX_HECTARES`], rounded to hundredths.
    Hectares,
    /// Tonnes per hectare, as a campaign's objective yield.
    ObjectiveYield,
    /// A model year.
    Year,
    /// A calendar date, `YYYY-MM-DD`.
    Date,
    /// A boolean.
    Flag,
    /// One of a fixed set of words, listed with `, ` between them.
    OneOf(&'static str),
    /// Another record, by id (`{name}_id`) or by its key (`{name}_{key}`).
    Reference(Key),
}

/// How a reference names a record besides its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// By the record's `external_code` (society records and per-country catalogues).
    ExternalCode,
    /// By the `reference_key` the shipped reference data gives a global catalogue's rows.
    ReferenceKey,
}

impl Key {
    fn suffix(self) -> &'static str {
        match self {
            Key::ExternalCode => "external_code",
            Key::ReferenceKey => "reference_key",
        }
    }
}

/// One field of an importable resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Its name in the API's read shape; for a reference, the stem (`establishment` for `establishment_id`).
    pub name: &'static str,
    /// How it is read.
    pub kind: Kind,
    /// Whether a row (other than a deletion) must give it.
    pub required: bool,
}

impl Field {
    /// The header names that give this field: its name, or a reference's id and key columns.
    pub fn columns(&self) -> Vec<String> {
        match self.kind {
            Kind::Reference(key) => vec![format!("{}_id", self.name), format!("{}_{}", self.name, key.suffix())],
            _ => vec![self.name.to_owned()],
        }
    }
}

/// One cell of a file, as its format gives it: CSV gives text, JSONL typed values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    /// Nothing: an empty CSV cell, a JSON `null`, a key a JSON line lacks.
    Empty,
    /// Text.
    Text(&'a str),
    /// A JSON whole number.
    Integer(i64),
    /// A JSON number with a fraction.
    Number(f64),
    /// A JSON boolean.
    Bool(bool),
    /// A JSON array or object, which no field holds.
    Nested,
}

/// A field's value, read and normalised as it is stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// None given.
    Null,
    /// Text (trimmed, never blank), a date as `YYYY-MM-DD`, or one of a fixed set's words.
    Text(String),
    /// A number (hectares rounded to hundredths).
    Number(f64),
    /// A whole number.
    Integer(i64),
    /// A boolean.
    Bool(bool),
    /// A reference by id, by key, or both (which must then name one record).
    Reference {
        /// The id given.
        id: Option<i64>,
        /// The key given.
        code: Option<String>,
    },
}

/// What a column of a file gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    ExternalCode,
    Deleted,
    Value(usize),
    Id(usize),
    Code(usize),
}

/// The columns of a file (a CSV header, or the keys of one JSON line), mapped onto a resource's fields.
#[derive(Debug, Clone)]
pub struct Header {
    fields: Vec<Field>,
    slots: Vec<Slot>,
    /// Numbers may be written with a decimal comma (`12,5`), as spreadsheets of `;`-separated files write them.
    decimal_comma: bool,
}

/// One row read: its key, whether it deletes, and a value per field (`Null` where the file has no column for it).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The record's `external_code`.
    pub external_code: String,
    /// The row asks for the record's deletion.
    pub deleted: bool,
    /// A value per field of the resource, in its order.
    pub values: Vec<Value>,
}

impl Header {
    /// Maps `names` onto `fields`. `complete` headers (a CSV file's) must name every required field, unless they have a
    /// `deleted` column (a file of deletions needs nothing else); a JSON line's keys need not. A missing required
    /// value is then refused with its row.
    pub fn new(fields: &[Field], names: &[&str], complete: bool, decimal_comma: bool) -> Result<Self, Vec<Violation>> {
        let mut violations = Vec::new();
        let mut slots = Vec::with_capacity(names.len());
        for name in names {
            let name = name.trim();
            let slot = match name {
                EXTERNAL_CODE => Some(Slot::ExternalCode),
                DELETED => Some(Slot::Deleted),
                _ => fields.iter().enumerate().find_map(|(index, field)| {
                    let columns = field.columns();
                    match (field.kind, columns.iter().position(|column| column == name)) {
                        (Kind::Reference(_), Some(0)) => Some(Slot::Id(index)),
                        (Kind::Reference(_), Some(_)) => Some(Slot::Code(index)),
                        (_, Some(_)) => Some(Slot::Value(index)),
                        (_, None) => None,
                    }
                }),
            };
            match slot {
                Some(slot) if slots.contains(&slot) => violations.push(Violation::new(name, Rule::RepeatedColumn)),
                Some(slot) => slots.push(slot),
                None => violations.push(Violation::new(name, Rule::UnknownColumn(accepted(fields)))),
            }
        }
        if complete && !slots.contains(&Slot::ExternalCode) {
            violations.push(Violation::new(EXTERNAL_CODE, Rule::MissingColumn));
        }
        if complete && !slots.contains(&Slot::Deleted) {
            for (index, field) in fields.iter().enumerate().filter(|(_, field)| field.required) {
                let given = slots
                    .iter()
                    .any(|slot| matches!(slot, Slot::Value(i) | Slot::Id(i) | Slot::Code(i) if *i == index));
                if !given {
                    violations.push(Violation::new(field.columns().join("|"), Rule::MissingColumn));
                }
            }
        }
        if violations.is_empty() {
            Ok(Self {
                fields: fields.to_vec(),
                slots,
                decimal_comma,
            })
        } else {
            Err(violations)
        }
    }

    /// How many columns the file has.
    pub fn width(&self) -> usize {
        self.slots.len()
    }

    /// Which fields the header gives (a value, an id or a key), in the resource's order.
    pub fn present(&self) -> Vec<bool> {
        let mut present = vec![false; self.fields.len()];
        for slot in &self.slots {
            if let Slot::Value(index) | Slot::Id(index) | Slot::Code(index) = slot {
                present[*index] = true;
            }
        }
        present
    }

    /// Reads a row's cells, one per column in header order, and checks it: the row as read (a value that breaks a
    /// rule is `Null`), and every violation found, in column order. A deletion needs only its `external_code`; its
    /// other cells are not read. A refused row is still worth its code: another row may repeat it.
    pub fn read(&self, cells: &[Cell<'_>]) -> (Row, Vec<Violation>) {
        let mut violations = Vec::new();
        let cell_of = |wanted: Slot| {
            self.slots
                .iter()
                .position(|slot| *slot == wanted)
                .and_then(|index| cells.get(index).copied())
                .unwrap_or(Cell::Empty)
        };
        let external_code = match read(Kind::Text, cell_of(Slot::ExternalCode), false) {
            Ok(Value::Text(code)) => imported_code(EXTERNAL_CODE, &code, &mut violations),
            Ok(_) => {
                violations.push(Violation::new(EXTERNAL_CODE, Rule::Blank));
                String::new()
            }
            Err(rule) => {
                violations.push(Violation::new(EXTERNAL_CODE, rule));
                String::new()
            }
        };
        let deleted = match read(Kind::Flag, cell_of(Slot::Deleted), false) {
            Ok(Value::Bool(deleted)) => deleted,
            Ok(_) => false,
            Err(rule) => {
                violations.push(Violation::new(DELETED, rule));
                false
            }
        };
        let mut values = vec![Value::Null; self.fields.len()];
        if !deleted {
            for (index, field) in self.fields.iter().enumerate() {
                values[index] = match field.kind {
                    Kind::Reference(_) => self.reference(
                        field,
                        cell_of(Slot::Id(index)),
                        cell_of(Slot::Code(index)),
                        &mut violations,
                    ),
                    kind => match read(kind, cell_of(Slot::Value(index)), self.decimal_comma) {
                        Ok(value) => check(field, value, &mut violations),
                        Err(rule) => {
                            violations.push(Violation::new(field.name, rule));
                            Value::Null
                        }
                    },
                };
            }
        }
        let row = Row {
            external_code,
            deleted,
            values,
        };
        (row, violations)
    }

    fn reference(&self, field: &Field, id: Cell<'_>, code: Cell<'_>, violations: &mut Vec<Violation>) -> Value {
        let columns = field.columns();
        let id = match read_id(id) {
            Ok(id) => id,
            Err(rule) => {
                violations.push(Violation::new(columns[0].as_str(), rule));
                None
            }
        };
        let code = match read(Kind::Text, code, false) {
            Ok(Value::Text(code)) => Some(imported_code(&columns[1], &code, violations)),
            Ok(_) => None,
            Err(rule) => {
                violations.push(Violation::new(columns[1].as_str(), rule));
                None
            }
        };
        if id.is_none() && code.is_none() {
            if field.required {
                violations.push(Violation::new(columns.join("|"), Rule::Blank));
            }
            return Value::Null;
        }
        Value::Reference { id, code }
    }
}

/// A reference's id: a whole number, read as a year is.
fn read_id(cell: Cell<'_>) -> Result<Option<i64>, Rule> {
    match read(Kind::Year, cell, false)? {
        Value::Integer(id) => Ok(Some(id)),
        _ => Ok(None),
    }
}

/// Every column a resource's file may have, as an unknown column's message lists them.
fn accepted(fields: &[Field]) -> String {
    let mut names = vec![EXTERNAL_CODE.to_owned()];
    names.extend(fields.iter().flat_map(Field::columns));
    names.push(DELETED.to_owned());
    names.join(", ")
}

/// The rules a read value meets, with the value as stored.
fn check(field: &Field, value: Value, violations: &mut Vec<Violation>) -> Value {
    let path = field.name;
    match (&field.kind, &value) {
        (_, Value::Null) if field.required => {
            check_required(path, "", violations);
        }
        (Kind::Text, Value::Text(sent)) => text::check(path, sent, imported_text(path), violations),
        (Kind::Hectares, Value::Number(area)) => {
            check_hectares(path, *area, violations);
            return Value::Number(crate::round_hectares(*area));
        }
        (Kind::ObjectiveYield, Value::Number(yield_)) if check_objective_yield(*yield_).is_err() => {
            let rule = if positive(*yield_) {
                Rule::OutOfRange {
                    min: 0.0,
                    max: MAX_OBJECTIVE_YIELD,
                }
            } else {
                Rule::NotPositive(*yield_)
            };
            violations.push(Violation::new(path, rule));
        }
        (Kind::Year, Value::Integer(year)) if !(YEARS.0..=YEARS.1).contains(year) => {
            let rule = Rule::OutOfRange {
                min: YEARS.0 as f64,
                max: YEARS.1 as f64,
            };
            violations.push(Violation::new(path, rule));
        }
        (Kind::OneOf(allowed), Value::Text(word)) if !allowed.split(", ").any(|one| one == word) => {
            violations.push(Violation::new(path, Rule::NotOneOf(allowed)));
        }
        _ => {}
    }
    value
}

/// The kind of text an imported field of that name holds, as the API's writes of the same field bound it.
fn imported_text(name: &str) -> Text {
    match name {
        "observations" => Text::Observations,
        "email" => Text::Email,
        _ => Text::Name,
    }
}

/// An imported code (a row's `external_code`, or a reference's), checked as the API's writes check codes, in the
/// form codes are stored and compared in, so that a file matches the records the API wrote.
fn imported_code(path: &str, code: &str, violations: &mut Vec<Violation>) -> String {
    text::check(path, code, Text::Code, violations);
    text::code(Some(code)).unwrap_or_default()
}

/// Reads one cell as `kind`; `Null` when it is empty.
pub fn read(kind: Kind, cell: Cell<'_>, decimal_comma: bool) -> Result<Value, Rule> {
    let wrong = |expected: Expected, sent: String| Rule::WrongType { expected, sent };
    let expected = match kind {
        Kind::Text | Kind::OneOf(_) | Kind::Reference(_) => Expected::Text,
        Kind::Hectares | Kind::ObjectiveYield => Expected::Number,
        Kind::Year => Expected::Integer,
        Kind::Date => Expected::Date,
        Kind::Flag => Expected::Boolean,
    };
    let text = match cell {
        Cell::Empty => return Ok(Value::Null),
        Cell::Text(text) if text.trim().is_empty() => return Ok(Value::Null),
        Cell::Text(text) => text.trim(),
        Cell::Integer(whole) => {
            return match expected {
                Expected::Number => Ok(Value::Number(whole as f64)),
                Expected::Integer => Ok(Value::Integer(whole)),
                Expected::Boolean if whole == 0 || whole == 1 => Ok(Value::Bool(whole == 1)),
                // ERPs often number their codes; a JSON number is taken as the code it reads as.
                Expected::Text if kind == Kind::Text => Ok(Value::Text(whole.to_string())),
                _ => Err(wrong(expected, whole.to_string())),
            };
        }
        Cell::Number(number) => {
            return match expected {
                Expected::Number if number.is_finite() => Ok(Value::Number(number)),
                _ => Err(wrong(expected, number.to_string())),
            }
        }
        Cell::Bool(flag) => {
            return match expected {
                Expected::Boolean => Ok(Value::Bool(flag)),
                _ => Err(wrong(expected, flag.to_string())),
            }
        }
        Cell::Nested => return Err(wrong(expected, "[…]".to_owned())),
    };
    match kind {
        Kind::Text | Kind::Reference(_) => Ok(Value::Text(text.to_owned())),
        Kind::OneOf(_) => Ok(Value::Text(text.to_lowercase())),
        Kind::Hectares | Kind::ObjectiveYield => number(text, decimal_comma)
            .map(Value::Number)
            .ok_or_else(|| wrong(expected, text.to_owned())),
        Kind::Year => text
            .parse()
            .map(Value::Integer)
            .map_err(|_| wrong(expected, text.to_owned())),
        Kind::Date => NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .map(|date| Value::Text(date.format("%Y-%m-%d").to_string()))
            .map_err(|_| wrong(expected, text.to_owned())),
        Kind::Flag => flag(text)
            .map(Value::Bool)
            .ok_or_else(|| wrong(expected, text.to_owned())),
    }
}

/// A number as spreadsheets write it: `12.5`, or `12,5` where decimal commas are allowed. A number with both marks
/// (`1.234,5`) is refused rather than guessed at.
fn number(text: &str, decimal_comma: bool) -> Option<f64> {
    let text = match (decimal_comma, text.contains(','), text.contains('.')) {
        (true, true, false) => text.replace(',', "."),
        (_, false, _) => text.to_owned(),
        _ => return None,
    };
    text.parse::<f64>().ok().filter(|number| number.is_finite())
}

/// A boolean in any of the words the platform's languages write it with.
fn flag(text: &str) -> Option<bool> {
    match text.to_lowercase().as_str() {
        "true" | "1" | "yes" | "sí" | "si" | "sim" | "verdadero" | "verdadeiro" => Some(true),
        "false" | "0" | "no" | "não" | "nao" | "falso" => Some(false),
        _ => None,
    }
}

/// What a loaded file changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Records created.
    pub created: u64,
    /// Records whose stored values changed.
    pub updated: u64,
    /// Records the file states as they already are.
    pub unchanged: u64,
    /// Records deleted.
    pub deleted: u64,
    /// Deletions of codes no live record has (already deleted, or never loaded).
    pub absent: u64,
}

/// A refused row of an imported file: its number (0 for the file as a whole) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The row: a CSV file's row as a spreadsheet numbers it (the header is row 1), a JSONL file's line.
    pub row: u64,
    /// Why.
    pub refusal: Refusal,
}

impl Problem {
    /// A row that breaks rules.
    pub fn invalid(row: u64, violations: Vec<Violation>) -> Self {
        Self {
            row,
            refusal: Refusal::Invalid(violations),
        }
    }
}

/// The problems of a file: the first [`REPORTED_PROBLEMS`] found, and how many there are in all.
#[derive(Debug, Clone, Default)]
pub struct Problems {
    named: Vec<Problem>,
    total: u64,
}

impl Problems {
    /// Counts a problem, and keeps it while fewer than [`REPORTED_PROBLEMS`] are kept.
    pub fn push(&mut self, problem: Problem) {
        self.total += 1;
        if self.named.len() < REPORTED_PROBLEMS {
            self.named.push(problem);
        }
    }

    /// Counts `more` problems found but not named (a store check that named only its first).
    pub fn count_more(&mut self, more: u64) {
        self.total += more;
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// How many there are in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The problems kept, by row.
    pub fn named(mut self) -> Vec<Problem> {
        self.named.sort_by_key(|problem| problem.row);
        self.named
    }
}

#[cfg(test)]
mod tests;
