//! Reading an import file as an old ERP or a spreadsheet writes it: CSV (a header row of field names; `,`, `;` or tab
//! separated, found from the header) or JSONL (one object per line); UTF-8 with or without a BOM, UTF-16 with a BOM,
//! and anything that is not UTF-8 read as Windows-1252 (the Latin-1 superset Windows ERPs write), unless
//! `--encoding` says otherwise. Rows are handed on one at a time, read and checked by the domain's rules; nothing
//! holds the file. A CSV cell is read as the operator wrote it, except the `'` that `export` puts before a formula
//! (`'=…`), which is taken off again (`crate::csv_cells::restore`).

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;

use clap::ValueEnum;
use domain::import::{Cell, Field, Header, Problem, Problems, Row};
use domain::{Rule, Violation};
use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252};

use crate::csv_cells;
use crate::settings::Failure;

/// How a file's rows are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Comma-, semicolon- or tab-separated values with a header row.
    Csv,
    /// One JSON object per line.
    Jsonl,
}

impl Format {
    /// The format a file's extension names; CSV when it names none.
    pub fn of(path: &Path) -> Format {
        let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("jsonl" | "ndjson" | "json") => Format::Jsonl,
            _ => Format::Csv,
        }
    }
}

/// What a first pass over a file found.
pub struct Survey {
    /// The encoding its text is read in.
    pub encoding: &'static Encoding,
    /// It was read as Windows-1252 because it is not UTF-8 (and has no BOM).
    pub guessed: bool,
    /// Lines, to size a progress bar.
    pub lines: u64,
    /// Its size in bytes.
    pub bytes: u64,
    /// The line of the first byte that is not UTF-8, in a file `--encoding utf-8` says is.
    pub not_utf8_at: Option<u64>,
}

/// Reads `path` once, without holding it, to choose its encoding and count its lines.
pub fn survey(path: &Path, forced: Option<&'static Encoding>) -> Result<Survey, Failure> {
    let mut file = File::open(path).map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let mut chunk = vec![0; 1 << 16];
    let newlines = |bytes: &[u8]| bytes.iter().filter(|byte| **byte == b'\n').count() as u64;
    // Bytes not yet known to be UTF-8 (a character cut by a chunk's end), and the lines before them.
    let mut carried: Vec<u8> = Vec::new();
    let mut lines_before_carried = 0_u64;
    let mut lines = 0_u64;
    let mut bytes = 0_u64;
    let mut bom = None;
    let mut not_utf8_at = None;
    loop {
        let read = file.read(&mut chunk)?;
        if read == 0 {
            break;
        }
        if bytes == 0 {
            bom = Encoding::for_bom(&chunk[..read]).map(|(encoding, _)| encoding);
        }
        bytes += read as u64;
        lines += newlines(&chunk[..read]);
        if not_utf8_at.is_some() {
            continue;
        }
        carried.extend_from_slice(&chunk[..read]);
        let valid = match std::str::from_utf8(&carried) {
            Ok(_) => carried.len(),
            Err(error) if error.error_len().is_none() => error.valid_up_to(),
            Err(error) => {
                not_utf8_at = Some(lines_before_carried + newlines(&carried[..error.valid_up_to()]) + 1);
                carried.len()
            }
        };
        lines_before_carried += newlines(&carried[..valid]);
        carried.drain(..valid);
    }
    if not_utf8_at.is_none() && !carried.is_empty() {
        not_utf8_at = Some(lines + 1);
    }
    let (encoding, guessed) = match (forced, bom) {
        (_, Some(bom)) => (bom, false),
        (Some(forced), None) => (forced, false),
        (None, None) if not_utf8_at.is_some() => (WINDOWS_1252, true),
        (None, None) => (UTF_8, false),
    };
    let not_utf8_at = not_utf8_at.filter(|_| encoding == UTF_8 && bom.is_none());
    Ok(Survey {
        encoding,
        guessed,
        lines,
        bytes,
        not_utf8_at,
    })
}

/// The encoding a label such as `latin1`, `windows-1252` or `utf-8` names.
pub fn encoding(label: &str) -> Result<&'static Encoding, Failure> {
    Encoding::for_label(label.trim().as_bytes())
        .filter(|encoding| [UTF_8, UTF_16LE, UTF_16BE].contains(encoding) || encoding.is_single_byte())
        .ok_or_else(|| {
            format!("unknown or unsupported encoding {label:?}; use e.g. utf-8, latin1, windows-1252").into()
        })
}

/// The separator of a CSV file: whichever of `,`, `;` and tab its header uses most outside quotes.
fn separator(header: &str) -> u8 {
    let mut counts = [(b',', 0), (b';', 0), (b'\t', 0)];
    let mut quoted = false;
    for byte in header.bytes() {
        match byte {
            b'"' => quoted = !quoted,
            _ if quoted => {}
            _ => {
                if let Some((_, count)) = counts.iter_mut().find(|(separator, _)| *separator == byte) {
                    *count += 1;
                }
            }
        }
    }
    counts
        .iter()
        .fold(
            (b',', 0),
            |best, candidate| if candidate.1 > best.1 { *candidate } else { best },
        )
        .0
}

/// What reading a file found besides its rows.
#[derive(Debug, Default)]
pub struct Reading {
    /// Which of the resource's fields the file has a column (a JSONL file: a key in any line) for.
    pub present: Vec<bool>,
    /// Rows refused while reading.
    pub problems: Problems,
    /// Rows read and handed on.
    pub rows: u64,
}

/// Reads the rows of `path`, decoded as `survey` says, in `format`, as rows of a resource with `fields`: each good
/// row goes to `sink` with its number (its line in the file), each bad one into the problems.
pub fn read_rows(
    path: &Path,
    survey: &Survey,
    format: Format,
    fields: &[Field],
    mut sink: impl FnMut(u64, Row) -> Result<(), Failure>,
) -> Result<Reading, Failure> {
    let mut outcome = Reading {
        present: vec![false; fields.len()],
        ..Reading::default()
    };
    if survey.bytes == 0 {
        outcome
            .problems
            .push(Problem::invalid(0, vec![Violation::new("", Rule::EmptyFile)]));
        return Ok(outcome);
    }
    if let Some(line) = survey.not_utf8_at {
        let violation = Violation::new("", Rule::NotText(UTF_8.name()));
        outcome.problems.push(Problem::invalid(line, vec![violation]));
        return Ok(outcome);
    }
    let decoded = encoding_rs_io::DecodeReaderBytesBuilder::new()
        .encoding(Some(survey.encoding))
        .bom_override(true)
        .build(File::open(path)?);
    let text = BufReader::with_capacity(1 << 16, decoded);
    // A refused row is handed on too, when it has a code: another row may repeat it, which the store finds.
    let mut hand_on = |line: u64, (row, violations): (Row, Vec<Violation>), outcome: &mut Reading| {
        outcome.rows += 1;
        if !violations.is_empty() {
            outcome.problems.push(Problem::invalid(line, violations));
        }
        if row.external_code.is_empty() {
            Ok(())
        } else {
            sink(line, row)
        }
    };
    match format {
        Format::Csv => read_csv(text, fields, &mut outcome, &mut hand_on)?,
        Format::Jsonl => read_jsonl(text, fields, &mut outcome, &mut hand_on)?,
    }
    Ok(outcome)
}

/// Reads the rows of a CSV file, its header first, handing each on with `hand_on`.
fn read_csv(
    mut text: impl BufRead,
    fields: &[Field],
    outcome: &mut Reading,
    hand_on: &mut impl FnMut(u64, (Row, Vec<Violation>), &mut Reading) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut first = String::new();
    text.read_line(&mut first)?;
    let first = first.trim_start_matches('\u{feff}').to_owned();
    let separator = separator(&first);
    let mut csv = csv::ReaderBuilder::new()
        .delimiter(separator)
        .flexible(true)
        .from_reader(Cursor::new(first.into_bytes()).chain(text));
    let names: Vec<String> = csv.headers()?.iter().map(str::to_owned).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    // Spreadsheets of the region write decimal commas in the files they separate with `;` or tabs.
    let header = match Header::new(fields, &names, true, separator != b',') {
        Ok(header) => header,
        Err(violations) => {
            outcome.problems.push(Problem::invalid(1, violations));
            return Ok(());
        }
    };
    outcome.present = header.present();
    let mut record = csv::StringRecord::new();
    loop {
        match csv.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(error) => {
                let line = error.position().map_or(0, csv::Position::line);
                let violation = Violation::new("", Rule::Malformed(error.to_string()));
                outcome.problems.push(Problem::invalid(line, vec![violation]));
                if error.is_io_error() {
                    break;
                }
                continue;
            }
        }
        let line = record.position().map_or(0, csv::Position::line);
        // Spreadsheets leave rows of empty cells (`;;;`) after the data.
        if record.iter().all(|cell| cell.trim().is_empty()) {
            continue;
        }
        if record.len() != header.width() {
            let rule = Rule::Cells {
                found: record.len(),
                expected: header.width(),
            };
            outcome
                .problems
                .push(Problem::invalid(line, vec![Violation::new("", rule)]));
            continue;
        }
        let cells: Vec<Cell<'_>> = record.iter().map(|cell| Cell::Text(csv_cells::restore(cell))).collect();
        hand_on(line, header.read(&cells), outcome)?;
    }
    Ok(())
}

/// Reads the rows of a JSONL file, one object a line, handing each on with `hand_on`.
fn read_jsonl(
    mut text: impl BufRead,
    fields: &[Field],
    outcome: &mut Reading,
    hand_on: &mut impl FnMut(u64, (Row, Vec<Violation>), &mut Reading) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut line = String::new();
    let mut number = 0;
    let mut last: Option<(Vec<String>, Header)> = None;
    loop {
        line.clear();
        if text.read_line(&mut line)? == 0 {
            break;
        }
        number += 1;
        let json = line.trim().trim_start_matches('\u{feff}');
        if json.is_empty() {
            continue;
        }
        let object = match serde_json::from_str::<serde_json::Value>(json) {
            Ok(serde_json::Value::Object(object)) => object,
            Ok(_) => {
                let violation = Violation::new("", Rule::NotAnObject);
                outcome.problems.push(Problem::invalid(number, vec![violation]));
                continue;
            }
            Err(error) => {
                let violation = Violation::new("", Rule::Malformed(error.to_string()));
                outcome.problems.push(Problem::invalid(number, vec![violation]));
                continue;
            }
        };
        let names: Vec<String> = object.keys().cloned().collect();
        // Lines of one file nearly always share their keys: their header is made once.
        let header = match last.take() {
            Some((known, header)) if known == names => header,
            _ => {
                let keys: Vec<&str> = names.iter().map(String::as_str).collect();
                match Header::new(fields, &keys, false, false) {
                    Ok(header) => header,
                    Err(violations) => {
                        outcome.problems.push(Problem::invalid(number, violations));
                        continue;
                    }
                }
            }
        };
        for (seen, present) in outcome.present.iter_mut().zip(header.present()) {
            *seen |= present;
        }
        let cells: Vec<Cell<'_>> = object.values().map(cell).collect();
        hand_on(number, header.read(&cells), outcome)?;
        last = Some((names, header));
    }
    Ok(())
}

/// A JSON value as a cell.
fn cell(value: &serde_json::Value) -> Cell<'_> {
    match value {
        serde_json::Value::Null => Cell::Empty,
        serde_json::Value::Bool(flag) => Cell::Bool(*flag),
        serde_json::Value::Number(number) => match (number.as_i64(), number.as_f64()) {
            (Some(whole), _) => Cell::Integer(whole),
            (None, Some(fraction)) => Cell::Number(fraction),
            (None, None) => Cell::Nested,
        },
        serde_json::Value::String(text) => Cell::Text(text),
        serde_json::Value::Array(_) | serde_json::Value::Object(_) => Cell::Nested,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_separator_is_the_one_the_header_uses_most_outside_quotes() {
        assert_eq!(separator("external_code,name,area"), b',');
        assert_eq!(separator("external_code;name;\"a,b,c,d\""), b';');
        assert_eq!(separator("external_code\tname"), b'\t');
        assert_eq!(separator("external_code"), b',');
    }

    #[test]
    fn formats_follow_the_extension() {
        assert_eq!(Format::of(Path::new("plots.JSONL")), Format::Jsonl);
        assert_eq!(Format::of(Path::new("plots.csv")), Format::Csv);
        assert_eq!(Format::of(Path::new("plots.txt")), Format::Csv);
    }

    #[test]
    fn encodings_are_named_by_their_usual_labels() {
        assert_eq!(encoding("latin1").ok(), Some(WINDOWS_1252));
        assert_eq!(encoding("UTF-8").ok(), Some(UTF_8));
        assert!(encoding("klingon").is_err());
    }
}
