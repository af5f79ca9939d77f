//! The import rules on rows as files give them, and their agreement with the API's write rules.

use super::*;
use crate::master_data::NewPlot;

const PLOT: &[Field] = &[
    Field {
        name: "establishment",
        kind: Kind::Reference(Key::ExternalCode),
        required: true,
    },
    Field {
        name: "name",
        kind: Kind::Text,
        required: true,
    },
    Field {
        name: "area",
        kind: Kind::Hectares,
        required: true,
    },
    Field {
        name: "active",
        kind: Kind::Flag,
        required: false,
    },
];

fn header(names: &[&str], decimal_comma: bool) -> Header {
    Header::new(PLOT, names, true, decimal_comma).expect("a valid header")
}

fn texts<'a>(cells: &[&'a str]) -> Vec<Cell<'a>> {
    cells.iter().map(|cell| Cell::Text(cell)).collect()
}

#[test]
fn a_header_names_references_by_id_or_code_and_refuses_unknown_repeated_and_missing_columns() {
    let names = ["external_code", "establishment_external_code", "name", "area"];
    assert_eq!(header(&names, false).present(), [true, true, true, false]);
    let refused =
        Header::new(PLOT, &["external_code", "nombre", "area", "area"], true, false).expect_err("a bad header");
    let paths: Vec<_> = refused.iter().map(|v| v.path.as_str()).collect();
    assert_eq!(
        paths,
        ["nombre", "area", "establishment_id|establishment_external_code", "name"]
    );
    assert!(matches!(&refused[0].rule, Rule::UnknownColumn(list) if list.contains("establishment_id")));
    assert_eq!(refused[1].rule, Rule::RepeatedColumn);
    assert_eq!(refused[3].rule, Rule::MissingColumn);
    assert!(
        Header::new(PLOT, &["name"], false, false).is_ok(),
        "a JSON line may leave fields out"
    );
}

#[test]
fn a_row_is_read_normalised_and_checked_with_the_api_rules() {
    let header = header(&["external_code", "establishment_id", "name", "area", "active"], false);
    let (row, violations) = header.read(&texts(&[" P-1 ", "7", " Lote 1 ", "12.345", "sí"]));
    assert!(violations.is_empty(), "{violations:?}");
    assert_eq!(row.external_code, "P-1");
    assert_eq!(
        row.values,
        [
            Value::Reference {
                id: Some(7),
                code: None
            },
            Value::Text("Lote 1".into()),
            Value::Number(12.35),
            Value::Bool(true),
        ]
    );
    let (_, refused) = header.read(&texts(&["", "x", " ", "0", "maybe"]));
    let found: Vec<_> = refused.iter().map(|v| (v.path.as_str(), v.rule.clone())).collect();
    assert_eq!(
        found,
        [
            ("external_code", Rule::Blank),
            (
                "establishment_id",
                Rule::WrongType {
                    expected: Expected::Integer,
                    sent: "x".into()
                }
            ),
            ("establishment_id|establishment_external_code", Rule::Blank),
            ("name", Rule::Blank),
            ("area", Rule::NotPositive(0.0)),
            (
                "active",
                Rule::WrongType {
                    expected: Expected::Boolean,
                    sent: "maybe".into()
                }
            ),
        ]
    );
}

#[test]
fn the_import_rules_of_a_plot_are_the_api_create_rules() {
    let header = header(&["external_code", "establishment_id", "name", "area"], false);
    for (name, area) in [
        ("Lote", "12.5"),
        ("  ", "3"),
        ("Lote", "0"),
        ("", "-2"),
        ("Lote", "2000000"),
    ] {
        let (_, imported) = header.read(&texts(&["P-1", "1", name, area]));
        let command = NewPlot {
            name: name.into(),
            establishment_id: 1,
            area: area.parse().expect("a number"),
            external_code: None,
            active: true,
        };
        let api = match command.check() {
            Ok(()) => Vec::new(),
            Err(Refusal::Invalid(violations)) => violations,
            Err(other) => panic!("{other:?}"),
        };
        assert_eq!(imported, api, "{name:?} {area:?}");
    }
}

#[test]
fn decimal_commas_are_read_where_the_separator_allows_them() {
    assert_eq!(read(Kind::Hectares, Cell::Text("12,5"), true), Ok(Value::Number(12.5)));
    assert_eq!(read(Kind::Hectares, Cell::Text("12.5"), true), Ok(Value::Number(12.5)));
    assert!(read(Kind::Hectares, Cell::Text("12,5"), false).is_err());
    assert!(
        read(Kind::Hectares, Cell::Text("1.234,5"), true).is_err(),
        "ambiguous marks"
    );
    assert!(read(Kind::Hectares, Cell::Text("NaN"), false).is_err());
}

#[test]
fn json_cells_are_taken_by_type() {
    assert_eq!(
        read(Kind::Text, Cell::Integer(120), false),
        Ok(Value::Text("120".into()))
    );
    assert_eq!(read(Kind::Hectares, Cell::Integer(3), false), Ok(Value::Number(3.0)));
    assert_eq!(read(Kind::Flag, Cell::Integer(0), false), Ok(Value::Bool(false)));
    assert!(read(Kind::Text, Cell::Bool(true), false).is_err());
    assert!(read(Kind::Hectares, Cell::Text("diez"), false).is_err());
    assert!(read(Kind::Year, Cell::Nested, false).is_err());
    assert_eq!(
        read(Kind::Date, Cell::Text("2025-09-01"), false),
        Ok(Value::Text("2025-09-01".into()))
    );
    assert!(read(Kind::Date, Cell::Text("01/09/2025"), false).is_err());
    assert_eq!(read(Kind::Year, Cell::Empty, false), Ok(Value::Null));
}

#[test]
fn a_deletion_needs_only_its_code() {
    let header = header(&["external_code", "establishment_id", "name", "area", "deleted"], false);
    for word in ["true", "1", "sí", "sim", "yes", "SI"] {
        let (row, violations) = header.read(&texts(&["P-1", "", "", "", word]));
        assert!(row.deleted && violations.is_empty(), "{word}");
    }
    let (row, violations) = header.read(&texts(&["P-1", "", "", "", "no"]));
    assert!(!row.deleted && !violations.is_empty(), "not a deletion, so incomplete");
}

#[test]
fn fixed_sets_and_years_are_bounded() {
    let machine = [
        Field {
            name: "kind",
            kind: Kind::OneOf("sprayer, planter"),
            required: true,
        },
        Field {
            name: "year",
            kind: Kind::Year,
            required: false,
        },
    ];
    let header = Header::new(&machine, &["external_code", "kind", "year"], true, false).expect("header");
    assert!(header.read(&texts(&["M-1", "Planter", "2019"])).1.is_empty());
    let (_, refused) = header.read(&texts(&["M-1", "tractor", "19"]));
    assert_eq!(refused[0].rule, Rule::NotOneOf("sprayer, planter"));
    assert!(matches!(refused[1].rule, Rule::OutOfRange { .. }));
}

#[test]
fn problems_past_the_cap_are_counted_and_the_named_ones_sorted() {
    let mut problems = Problems::default();
    for row in (0..REPORTED_PROBLEMS as u64 + 5).rev() {
        problems.push(Problem::invalid(row, Vec::new()));
    }
    problems.count_more(10);
    assert_eq!(problems.total(), REPORTED_PROBLEMS as u64 + 15);
    let named = problems.named();
    assert_eq!(named.len(), REPORTED_PROBLEMS);
    assert!(named.windows(2).all(|pair| pair[0].row < pair[1].row));
}

#[test]
fn imported_texts_are_bounded_and_codes_normalised_as_the_api_writes_them() {
    let header = header(&["external_code", "establishment_external_code", "name", "area"], false);
    // Decomposed and fullwidth codes read as the code they look like, in the row's key and in a reference.
    let (row, violations) = header.read(&texts(&["Man\u{0069}\u{0301}-1", "ＥＳＴ－１", "Lote", "3"]));
    assert!(violations.is_empty(), "{violations:?}");
    assert_eq!(row.external_code, "Maní-1");
    assert_eq!(
        row.values[0],
        Value::Reference {
            id: None,
            code: Some("EST-1".into())
        }
    );
    let long_name = "n".repeat(crate::text::MAX_NAME + 1);
    let long_code = "c".repeat(crate::text::MAX_CODE + 1);
    let (_, refused) = header.read(&texts(&["P\u{200B}1", &long_code, &long_name, "3"]));
    let found: Vec<_> = refused.iter().map(|v| (v.path.as_str(), v.rule.clone())).collect();
    assert_eq!(
        found,
        [
            ("external_code", Rule::Invisible('\u{200B}')),
            ("establishment_external_code", Rule::TooLong(crate::text::MAX_CODE)),
            ("name", Rule::TooLong(crate::text::MAX_NAME)),
        ]
    );
    // The same bound as the API's create of a plot.
    let command = NewPlot {
        name: long_name,
        establishment_id: 1,
        area: 3.0,
        external_code: None,
        active: true,
    };
    assert_eq!(
        command.check(),
        Err(Refusal::Invalid(vec![Violation::new(
            "name",
            Rule::TooLong(crate::text::MAX_NAME)
        )]))
    );
    assert_eq!(imported_text("observations"), Text::Observations);
    assert_eq!(imported_text("email"), Text::Email);
    assert_eq!(imported_text("lastname"), Text::Name);
}
