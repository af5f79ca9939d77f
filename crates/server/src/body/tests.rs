use std::time::Instant;

use serde_json::{json, Value};
use wire::field::NewDeviceEvents;
use wire::work_orders::WorkOrderWrite;

use super::*;

fn schemas() -> BodySchemas {
    BodySchemas::new(&crate::openapi_document("SVC")).expect("the document compiles")
}

fn work_order() -> Value {
    json!({
        "header": {
            "system_id": "third_party", "name": "Pulverización", "date": "2025-10-02T08:00:00-03:00",
            "voucher_date": "2025-10-01T00:00:00-03:00", "state": { "pending": true, "executed": false, "confirmed": false },
            "extra_fields": { "company": { "local_id": 1 }, "voucher_type": { "local_id": 2 } }
        },
        "supplies": [{ "cultivation": { "local_id": 340 }, "formulated": { "local_id": 1 }, "area_applied": 42.5,
                       "total_applied": 85.0, "date": "2025-10-02T08:00:00-03:00",
                       "state": { "pending": true, "executed": false, "confirmed": false } }],
        "labours": [{ "cultivation": { "local_id": 340 }, "labour_type": null, "area_applied": 42.5,
                      "date": "2025-10-02T08:00:00-03:00", "state": { "pending": true, "executed": false, "confirmed": false } }]
    })
}

fn refused(body: &Value) -> BodyError {
    let bytes = serde_json::to_vec(body).expect("JSON");
    match schemas().read::<WorkOrderWrite>(&bytes) {
        Ok(_) => panic!("{body} is refused"),
        Err(error) => error,
    }
}

fn at(path: &[Segment<&str>], problem: Problem) -> BodyError {
    BodyError::at(path.iter().map(|segment| segment.map(str::to_owned)).collect(), problem)
}

/// Each problem of `error`, as its path and reason.
fn listed(error: &BodyError) -> Vec<(String, &'static str)> {
    error
        .problems()
        .map(|(path, problem)| (path, problem.reason()))
        .collect()
}

#[test]
fn a_body_that_fits_reads_as_before() {
    let bytes = serde_json::to_vec(&work_order()).expect("JSON");
    let read = schemas().read::<WorkOrderWrite>(&bytes).expect("the example fits");
    assert_eq!(
        read,
        serde_json::from_slice::<WorkOrderWrite>(&bytes).expect("serde reads it")
    );
}

#[test]
fn mismatches_are_named_by_path_and_json_type() {
    let mut body = work_order();
    body["supplies"][0]["area_applied"] = json!("42");
    let path = [
        Segment::Key("supplies"),
        Segment::Index(0),
        Segment::Key("area_applied"),
    ];
    let wrong = Problem::WrongType {
        expected: Expected::NUMBER,
        found: JsonKind::Text,
    };
    assert_eq!(refused(&body), at(&path, wrong));

    let mut body = work_order();
    body["header"]["extra_fields"]["company"] = json!([1]);
    let path = [
        Segment::Key("header"),
        Segment::Key("extra_fields"),
        Segment::Key("company"),
    ];
    let wrong = Problem::WrongType {
        expected: Expected::OBJECT,
        found: JsonKind::Array,
    };
    assert_eq!(refused(&body), at(&path, wrong));

    let mut body = work_order();
    body["labours"][0]["labour_type"] = json!(3);
    let path = [Segment::Key("labours"), Segment::Index(0), Segment::Key("labour_type")];
    let wrong = Problem::WrongType {
        expected: Expected::NULL | Expected::OBJECT,
        found: JsonKind::Integer,
    };
    assert_eq!(refused(&body), at(&path, wrong));
}

#[test]
fn missing_fields_and_bad_dates_are_named() {
    let mut body = work_order();
    body["header"].as_object_mut().expect("an object").remove("date");
    assert_eq!(
        refused(&body),
        at(&[Segment::Key("header"), Segment::Key("date")], Problem::Missing)
    );

    let mut body = work_order();
    body["header"]["date"] = json!("2025-10-02 08:00");
    assert_eq!(
        refused(&body),
        at(&[Segment::Key("header"), Segment::Key("date")], Problem::NotDateTime)
    );
}

#[test]
fn an_array_is_no_object_and_the_root_has_an_empty_path() {
    let refused = schemas().read::<WorkOrderWrite>(br#"[{"system_id": "third_party"}]"#);
    let wrong = Problem::WrongType {
        expected: Expected::OBJECT,
        found: JsonKind::Array,
    };
    assert_eq!(refused.map(|_| ()), Err(at(&[], wrong)));
}

#[test]
fn syntax_errors_and_truncated_bodies_say_where() {
    let schemas = schemas();
    assert_eq!(
        schemas.read::<WorkOrderWrite>(b"{\"header\": {\"name\": ").map(|_| ()),
        Err(at(&[], Problem::Truncated { line: 1, column: 20 }))
    );
    assert_eq!(
        schemas.read::<WorkOrderWrite>(b"{\n  \"header\" 1}").map(|_| ()),
        Err(at(&[], Problem::Syntax { line: 2, column: 12 }))
    );
}

#[test]
fn what_only_the_typed_parse_refuses_is_named_by_path_too() {
    let mut body = work_order();
    body["header"]["extra_fields"]["company"]["local_id"] = json!(u64::MAX);
    let path = [
        Segment::Key("header"),
        Segment::Key("extra_fields"),
        Segment::Key("company"),
        Segment::Key("local_id"),
    ];
    let unacceptable = Problem::Unacceptable {
        expected: Expected::INTEGER,
    };
    assert_eq!(refused(&body), at(&path, unacceptable));
}

/// Times the parse of a 10,000-reading batch with and without the schema check:
/// `cargo test -p server --lib -- --ignored --nocapture batch_parse_timing`.
#[test]
#[ignore = "a measurement, not a check"]
fn batch_parse_timing() {
    let reading = json!({"device_id": 4, "device_event_type_id": 1, "recorded_at": "2025-10-02T08:00:00-03:00",
                         "value": 23.75});
    let bytes = serde_json::to_vec(&Value::Array(vec![reading; 10_000])).expect("JSON");
    let schemas = schemas();
    let rounds = 50;
    let time = |parse: &dyn Fn() -> usize| {
        let start = Instant::now();
        let items: usize = (0..rounds).map(|_| parse()).sum();
        assert_eq!(items, rounds * 10_000);
        start.elapsed() / u32::try_from(rounds).expect("few rounds")
    };
    for _ in 0..2 {
        let typed = time(&|| {
            serde_json::from_slice::<NewDeviceEvents>(&bytes)
                .expect("reads")
                .items()
                .len()
        });
        let checked = time(&|| schemas.read::<NewDeviceEvents>(&bytes).expect("reads").items().len());
        println!(
            "{} bytes: typed parse {typed:?}, checked and typed {checked:?}",
            bytes.len()
        );
    }
}

#[test]
fn integers_written_with_a_zero_fraction_read_as_integers_within_the_64_bit_range() {
    let mut body = work_order();
    body["header"]["extra_fields"]["company"]["local_id"] = json!(7.0);
    body["supplies"][0]["area_applied"] = json!(40.0);
    let bytes = serde_json::to_vec(&body).expect("JSON");
    let read = schemas().read::<WorkOrderWrite>(&bytes).expect("7.0 is an integer");
    assert_eq!(read.header.extra_fields.company.local_id, 7);
    assert_eq!(read.supplies[0].area_applied, 40.0);
    body["header"]["extra_fields"]["company"]["local_id"] = json!(7);
    let integer = serde_json::to_string(&body).expect("JSON");
    // Sixteen digits and a zero fraction: serde_json's fast float parse read it a fraction off (schemathesis found it);
    // parsed correctly rounded, it is the integer it reads as.
    let long = integer.replace(r#""local_id":7"#, r#""local_id":1929074050227157.0"#);
    let read = schemas().read::<WorkOrderWrite>(long.as_bytes()).expect("an integer");
    assert_eq!(read.header.extra_fields.company.local_id, 1_929_074_050_227_157);
    for beyond in ["-9223372036854775809", "9223372036854775808", "7.5"] {
        let text = integer.replace(r#""local_id":7"#, &format!(r#""local_id":{beyond}"#));
        assert!(text.contains(beyond), "{text}");
        assert!(
            schemas().read::<WorkOrderWrite>(text.as_bytes()).is_err(),
            "{beyond} is refused"
        );
    }
}

#[test]
fn a_nul_is_refused_where_a_text_is_read_and_ignored_elsewhere() {
    let mut body = work_order();
    body["header"]["name"] = json!("Pulverización\u{0}");
    let path = [Segment::Key("header"), Segment::Key("name")];
    assert_eq!(refused(&body), at(&path, Problem::Nul));
    let mut body = work_order();
    body["header"]["note\u{0}"] = json!(["\u{0}", { "\u{0}": "\u{0}" }]);
    let bytes = serde_json::to_vec(&body).expect("JSON");
    assert!(
        schemas().read::<WorkOrderWrite>(&bytes).is_ok(),
        "what the server does not read is ignored"
    );
}

#[test]
fn a_body_with_three_wrong_fields_names_all_three_in_body_order() {
    // In the order sent: `serde_json` writes an object's keys sorted, so `labours` comes before `supplies`.
    let mut body = work_order();
    body["header"]["name"] = json!(7);
    body["header"].as_object_mut().expect("an object").remove("date");
    body["supplies"][0]["area_applied"] = json!("42");
    body["labours"][0]["date"] = json!("yesterday");
    let error = refused(&body);
    assert_eq!(
        listed(&error),
        [
            ("header.name".to_owned(), "wrong_type"),
            ("header.date".to_owned(), "missing_field"),
            ("labours[0].date".to_owned(), "not_a_date_time"),
            ("supplies[0].area_applied".to_owned(), "wrong_type"),
        ]
    );
    assert!(!error.more() && !error.malformed());
    let text = error.text(domain::Lang::Es);
    for path in [
        "header.name",
        "header.date",
        "supplies[0].area_applied",
        "labours[0].date",
    ] {
        assert!(text.contains(path), "{text}");
    }
}

#[test]
fn a_value_of_the_wrong_type_is_skipped_whole_and_the_walk_goes_on() {
    let mut body = work_order();
    body["header"]["state"] = json!([{ "pending": "yes" }, 3]);
    body["supplies"] = json!({ "0": { "area_applied": "x" } });
    body["labours"][0]["contractors"] = json!([{ "local_id": "3" }, { "local_id": 4 }, 5]);
    assert_eq!(
        listed(&refused(&body)),
        [
            ("header.state".to_owned(), "wrong_type"),
            ("labours[0].contractors[0].local_id".to_owned(), "wrong_type"),
            ("labours[0].contractors[2]".to_owned(), "wrong_type"),
            ("supplies".to_owned(), "wrong_type"),
        ]
    );
}

#[test]
fn a_body_with_thousands_of_wrong_items_lists_a_bounded_number_and_says_there_are_more() {
    let reading = json!({"device_id": "four", "device_event_type_id": 1, "recorded_at": "2025-10-02T08:00:00-03:00",
                         "value": 23.75});
    let bytes = serde_json::to_vec(&Value::Array(vec![reading; 5_000])).expect("JSON");
    let error = match schemas().read::<NewDeviceEvents>(&bytes) {
        Ok(_) => panic!("5,000 wrong readings are refused"),
        Err(error) => error,
    };
    assert_eq!(error.problems().count(), MAX_PROBLEMS);
    assert!(error.more());
    assert_eq!(
        error.problems().last().map(|(path, _)| path),
        Some(format!("[{}].device_id", MAX_PROBLEMS - 1))
    );
    let text = error.text(domain::Lang::Pt);
    assert!(text.contains("são listados os primeiros 100"), "{text}");
    assert!(text.len() < 10_000, "the message stays small: {} bytes", text.len());
}

#[test]
fn malformed_json_is_one_problem_whatever_came_before_it() {
    let schemas = schemas();
    for bytes in [
        &br#"{"header": 1, "supplies": 2, "labours": "#[..],
        br#"{"header": 1, "supplies": 2, "labours": 3 x"#,
    ] {
        let error = match schemas.read::<WorkOrderWrite>(bytes) {
            Ok(_) => panic!("not JSON"),
            Err(error) => error,
        };
        assert_eq!(error.problems().count(), 1, "{error:?}");
        assert!(error.malformed());
        assert_eq!(listed(&error), [(String::new(), "malformed_json")]);
    }
}
