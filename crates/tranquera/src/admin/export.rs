//! `tranquera admin export RESOURCE [FILE]`: a resource's live records in the format `import` reads (CSV with a
//! header row, or JSONL), to a file or standard output, a page at a time. Importing what it wrote changes nothing.
//! A CSV's text cells are written so that no spreadsheet runs them as formulas (`crate::csv_cells`).

use std::borrow::Cow;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use server::i18n::import::exported;
use store::import::ExportValue;
use store::Store;

use super::files::Format;
use super::import::Target;
use crate::csv_cells;
use crate::settings::Failure;

/// Records read at a time.
const PAGE: usize = 5_000;

/// Flags of `tranquera admin export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The resource, as `import` names it.
    resource: String,
    /// Where to write; standard output when none.
    file: Option<PathBuf>,
    #[command(flatten)]
    target: Target,
    /// The format; by default the file's extension's, else CSV.
    #[arg(long, value_enum)]
    format: Option<Format>,
}

/// Runs an export; what it wrote is counted on standard error, so standard output carries only the data.
pub async fn run(store: &Store, args: ExportArgs) -> Result<(), Failure> {
    let lang = args.target.lang();
    let (resource, owner) = args.target.resolve(store, &args.resource).await?;
    let format = args
        .format
        .or_else(|| args.file.as_deref().map(Format::of))
        .unwrap_or(Format::Csv);
    let out: Box<dyn Write> = match &args.file {
        Some(path) => {
            Box::new(std::fs::File::create(path).map_err(|error| format!("cannot write {}: {error}", path.display()))?)
        }
        None => Box::new(std::io::stdout().lock()),
    };
    let mut columns = vec![domain::import::EXTERNAL_CODE.to_owned()];
    columns.extend(resource.fields().iter().flat_map(domain::import::Field::columns));
    let mut sink = match format {
        Format::Csv => {
            let mut csv = csv_cells::writer(out);
            csv.write_record(&columns)?;
            Sink::Csv(Box::new(csv))
        }
        Format::Jsonl => Sink::Jsonl(std::io::BufWriter::new(out)),
    };
    let mut written = 0;
    let mut after = 0;
    loop {
        let page = store.export_page(resource, &owner, after, PAGE).await?;
        for (code, values) in page.rows {
            written += 1;
            match &mut sink {
                Sink::Csv(csv) => {
                    csv.write_field(csv_cells::neutralise(&code).as_ref())?;
                    for value in &values {
                        csv.write_field(text(value).as_ref())?;
                    }
                    csv.write_record(None::<&[u8]>)?;
                }
                Sink::Jsonl(out) => {
                    let mut object = serde_json::Map::new();
                    object.insert(columns[0].clone(), code.into());
                    for (name, value) in columns.iter().skip(1).zip(values) {
                        object.insert(name.clone(), json(value));
                    }
                    serde_json::to_writer(&mut *out, &object)?;
                    out.write_all(b"\n")?;
                }
            }
        }
        match page.next {
            Some(next) => after = next,
            None => break,
        }
    }
    match &mut sink {
        Sink::Csv(csv) => csv.flush()?,
        Sink::Jsonl(out) => out.flush()?,
    }
    let uncoded = store.export_uncoded(resource, &owner).await?;
    eprintln!("{}", exported(resource.name, written, uncoded, lang));
    Ok(())
}

/// Where records are written, in their format.
enum Sink {
    Csv(Box<csv::Writer<Box<dyn Write>>>),
    Jsonl(std::io::BufWriter<Box<dyn Write>>),
}

/// A value as a CSV cell: text neutralised (a formula gets a `'` before it), numbers with a decimal point and as
/// they are (`-3.5` stays a number), booleans as `true` and `false`, nothing as an empty cell.
fn text(value: &ExportValue) -> Cow<'_, str> {
    match value {
        ExportValue::Null => Cow::Borrowed(""),
        ExportValue::Text(text) => csv_cells::neutralise(text),
        ExportValue::Number(number) => Cow::Owned(number.to_string()),
        ExportValue::Integer(whole) => Cow::Owned(whole.to_string()),
        ExportValue::Bool(flag) => Cow::Owned(flag.to_string()),
    }
}

fn json(value: ExportValue) -> serde_json::Value {
    match value {
        ExportValue::Null => serde_json::Value::Null,
        ExportValue::Text(text) => text.into(),
        ExportValue::Number(number) => number.into(),
        ExportValue::Integer(whole) => whole.into(),
        ExportValue::Bool(flag) => flag.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_cells_are_neutralised_and_numbers_are_not() {
        for (value, cell) in [
            (ExportValue::Text("=1+1".into()), "'=1+1"),
            (ExportValue::Text("@x".into()), "'@x"),
            (ExportValue::Text("-3.5".into()), "-3.5"),
            (ExportValue::Number(-3.5), "-3.5"),
            (ExportValue::Integer(-7), "-7"),
            (ExportValue::Bool(false), "false"),
            (ExportValue::Null, ""),
        ] {
            assert_eq!(text(&value), cell, "{value:?}");
        }
    }
}
