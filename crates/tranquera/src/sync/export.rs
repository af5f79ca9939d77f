//! Renders a resource's live records from the mirror into a folder file: JSONL (one object a line) or CSV, whose
//! text cells no spreadsheet runs as formulas (`crate::csv_cells`).
//!
//! Files are written to a temporary name and renamed, so a reader (or an interrupted sync) never sees half a file.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::csv_cells;
use crate::settings::Failure;

/// Writes `records` (JSON texts, by ascending id) as `dir/<resource>.jsonl`.
pub fn jsonl(dir: &Path, resource: &str, records: &[(i64, String)]) -> Result<(), Failure> {
    let mut text = String::new();
    for (_, record) in records {
        text.push_str(record);
        text.push('\n');
    }
    replace(&dir.join(format!("{resource}.jsonl")), text.as_bytes())
}

/// Writes `records` as `dir/<resource>.csv`: one column per top-level field (the union over all records, `id`
/// first, then by name), scalars as text, nested objects and arrays as JSON text, null as an empty cell.
pub fn csv(dir: &Path, resource: &str, records: &[(i64, String)]) -> Result<(), Failure> {
    let parsed = records
        .iter()
        .map(|(_, record)| serde_json::from_str::<Value>(record))
        .collect::<Result<Vec<_>, _>>()?;
    let columns = columns(&parsed);
    let mut out = csv_cells::writer(Vec::new());
    out.write_record(&columns)?;
    for record in &parsed {
        for column in &columns {
            out.write_field(cell(record.get(column)).as_bytes())?;
        }
        out.write_record(None::<&[u8]>)?;
    }
    let out = out.into_inner().map_err(|error| error.into_error())?;
    replace(&dir.join(format!("{resource}.csv")), &out)
}

/// The header: every top-level key seen, so a field absent from the first record still gets its column.
fn columns(records: &[Value]) -> Vec<String> {
    let keys: BTreeSet<&str> = records
        .iter()
        .filter_map(Value::as_object)
        .flat_map(|object| object.keys().map(String::as_str))
        .collect();
    let mut columns: Vec<String> = Vec::with_capacity(keys.len());
    if keys.contains("id") {
        columns.push("id".to_owned());
    }
    columns.extend(keys.into_iter().filter(|k| *k != "id").map(str::to_owned));
    columns
}

/// One cell's text: strings neutralised (a formula gets a `'` before it), numbers and booleans as JSON prints them
/// (`-3.5` stays a number), nested values as JSON text (which starts with `{` or `[`).
fn cell(value: Option<&Value>) -> Cow<'_, str> {
    match value {
        None | Some(Value::Null) => Cow::Borrowed(""),
        Some(Value::String(text)) => csv_cells::neutralise(text),
        Some(other) => Cow::Owned(other.to_string()),
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder, then renames it into place.
pub fn replace(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".partial");
    std::fs::write(&temporary, bytes)?;
    std::fs::rename(&temporary, path)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_values_become_json_text_and_id_leads() {
        let records = [json!({"name": "x", "id": 2, "tags": [1, 2], "gone": null})];
        assert_eq!(columns(&records), ["id", "gone", "name", "tags"]);
        assert_eq!(cell(records[0].get("tags")), "[1,2]");
        assert_eq!(cell(records[0].get("gone")), "");
        assert_eq!(cell(records[0].get("name")), "x");
    }

    #[test]
    fn formulas_are_neutralised_and_numbers_kept() {
        let dir = std::env::temp_dir().join(format!("sync-export-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder");
        let record = json!({"id": 1, "name": "=HYPERLINK(\"http://x\")", "area": -3.5, "code": "-3.5", "tags": [1]});
        let mut records = vec![(1, record.to_string())];
        let starts = ["+1+1", "-1+1", "@x", "\t=1", "\r=1"];
        for (id, name) in (2..).zip(starts) {
            records.push((id, json!({"id": id, "name": name}).to_string()));
        }
        csv(&dir, "plots", &records).expect("written");
        let written = std::fs::read_to_string(dir.join("plots.csv")).expect("the file");
        let _ = std::fs::remove_dir_all(&dir);
        let mut lines = written.split('\n');
        assert_eq!(lines.next(), Some("\"id\",\"area\",\"code\",\"name\",\"tags\""));
        assert_eq!(
            lines.next(),
            Some("1,-3.5,-3.5,\"'=HYPERLINK(\"\"http://x\"\")\",\"[1]\"")
        );
        for (id, name) in (2..).zip(starts) {
            assert_eq!(lines.next(), Some(format!("{id},\"\",\"\",\"'{name}\",\"\"").as_str()));
        }
    }
}
