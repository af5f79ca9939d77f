//! Renders a resource's live records from the mirror into a folder file: JSONL (one object a line) or CSV.
//!
//! Files are written to a temporary name and renamed, so a reader (or an interrupted sync) never sees half a file.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::Path;

use serde_json::Value;

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
    let mut out = Vec::new();
    writeln!(
        out,
        "{}",
        columns.iter().map(|c| quote(c)).collect::<Vec<_>>().join(",")
    )?;
    for record in &parsed {
        let cells: Vec<String> = columns.iter().map(|c| quote(&cell(record.get(c)))).collect();
        writeln!(out, "{}", cells.join(","))?;
    }
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

/// One cell's text: strings as they are, numbers and booleans as JSON prints them, nested values as JSON text.
pub fn cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

/// RFC 4180 quoting: only cells with a comma, quote or line break are quoted, quotes doubled.
fn quote(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
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
    fn quotes_only_what_needs_it() {
        assert_eq!(quote("plain"), "plain");
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn nested_values_become_json_text_and_id_leads() {
        let records = [json!({"name": "x", "id": 2, "tags": [1, 2], "gone": null})];
        assert_eq!(columns(&records), ["id", "gone", "name", "tags"]);
        assert_eq!(cell(records[0].get("tags")), "[1,2]");
        assert_eq!(cell(records[0].get("gone")), "");
        assert_eq!(cell(records[0].get("name")), "x");
    }
}
