//! The cells of every CSV file the command line writes (`admin export`, `sync --format csv`), so that none of them
//! carries a formula into the spreadsheet that opens the file (OWASP's "CSV injection"), and the reading back of
//! such a cell by `admin import`.
//!
//! - A text cell whose first character makes a spreadsheet read it as a formula (`=`, `+`, `-`, `@`, tab, carriage
//!   return) is written with a `'` before it: the spreadsheet shows the text, and runs nothing. A text that is a
//!   plain number (`-3.5`) is left as it is: a spreadsheet reads it as that number, never as a formula.
//! - Every cell that is not a number is quoted, so that a `;` or a tab inside a text cannot start a new cell (with a
//!   formula at its head) in a spreadsheet that splits lines at those.
//! - Numbers and booleans are written as they are: `-3.5` in a numeric column stays a number.
//! - The import takes one `'` off a cell that begins with `'`s followed by one of those characters, so a file the
//!   export wrote loads back unchanged. To keep that exact, a text that already begins so (`'=x`) is exported with
//!   one `'` more. Any other cell is read as the operator wrote it.

use std::borrow::Cow;
use std::io::Write;

use csv::{QuoteStyle, WriterBuilder};

/// The first characters that make a spreadsheet read a cell as a formula (OWASP's list).
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A CSV writer that quotes every cell that is not a number; its text cells go through [`neutralise`].
pub fn writer<W: Write>(out: W) -> csv::Writer<W> {
    WriterBuilder::new()
        .quote_style(QuoteStyle::NonNumeric)
        .from_writer(out)
}

/// A text cell as a CSV file is to hold it: with a `'` before it when a spreadsheet would run it as a formula, or
/// when its leading `'`s come before such a character (so that [`restore`] gives back exactly `text`).
pub fn neutralise(text: &str) -> Cow<'_, str> {
    if starts_a_formula(text.trim_start_matches('\'')) && !plain_number(text) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// A CSV cell as the import reads it: one leading `'` less when its `'`s come before a formula's first character,
/// which is what [`neutralise`] added; any other cell as it is.
pub fn restore(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if starts_a_formula(rest.trim_start_matches('\'')) => rest,
        _ => cell,
    }
}

fn starts_a_formula(text: &str) -> bool {
    text.starts_with(FORMULA_STARTS)
}

/// Whether `text` is a number and nothing else (`-3.5`, `+12`, `-0,75`): a spreadsheet reads it as that number.
fn plain_number(text: &str) -> bool {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (whole, fraction) = unsigned.split_once(['.', ',']).unwrap_or((unsigned, "0"));
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit());
    digits(whole) && digits(fraction)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_get_a_quote_and_plain_numbers_and_other_texts_do_not() {
        for (text, written) in [
            ("=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")"),
            ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"),
            ("+1+1", "'+1+1"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("'=x", "''=x"),
            ("-", "'-"),
            ("-3.5", "-3.5"),
            ("+12", "+12"),
            ("-0,75", "-0,75"),
            ("Lote 3 - Bajo", "Lote 3 - Bajo"),
            ("'quoted", "'quoted"),
            ("", ""),
        ] {
            assert_eq!(neutralise(text), written, "{text:?}");
            assert_eq!(restore(&neutralise(text)), text, "{text:?} round trip");
        }
        assert_eq!(restore("=as the operator wrote it"), "=as the operator wrote it");
        assert_eq!(restore("'plain"), "'plain");
    }

    #[test]
    fn text_cells_are_quoted_and_numbers_are_not() {
        let mut csv = writer(Vec::new());
        csv.write_record(["name", "-3.5", "12", "", "true"]).expect("a record");
        let written = String::from_utf8(csv.into_inner().expect("flushed")).expect("UTF-8");
        assert_eq!(written, "\"name\",-3.5,12,\"\",\"true\"\n");
    }
}
