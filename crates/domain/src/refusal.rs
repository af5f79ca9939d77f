//! Why a write is refused: every reason, named once. Domain rules find the reasons a body shows by itself; the store
//! adds only what it found in the database (a reference that is not live, a line of another order, a stale version);
//! the server puts each reason into words, in one place, in every language.

/// What is wrong with one value of a body.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// `system_id` is not `third_party`; what was sent.
    SystemId(String),
    /// `extra_fields.company.local_id` is not the caller's society.
    Company {
        /// What was sent.
        sent: i64,
        /// The caller's society.
        expected: i64,
    },
    /// A required text is blank.
    Blank,
    /// A quantity that must be positive is not; what was sent.
    NotPositive(f64),
    /// A quantity above zero but below the smallest one stored as it is sent (a subnormal number, or an area under
    /// the hundredth of a hectare that areas are kept to).
    TooSmall {
        /// What was sent.
        sent: f64,
        /// The smallest accepted.
        min: f64,
    },
    /// A number outside its range, bounds included.
    OutOfRange {
        /// Lowest allowed.
        min: f64,
        /// Highest allowed.
        max: f64,
    },
    /// A value outside a fixed set; the allowed values, as the message lists them.
    NotOneOf(&'static str),
    /// A field that a device of this kind must have; the kind.
    RequiredForKind(&'static str),
    /// A field that a device of this kind must not have; the kind.
    NotForKind(&'static str),
    /// `cultivation.local_id` is not a live campaign of the caller's society. Says whether the id exists as a crop
    /// species or as a v3 cultivation row, the usual confusions (the homonym rule).
    NotACampaign {
        /// The id sent.
        id: i64,
        /// A species has this id.
        species: bool,
        /// One of the society's v3 cultivation rows has this id.
        cultivation: bool,
    },
    /// The referenced record is not one of the caller's (or, for catalogues, its country's) live records.
    Unknown(i64),
    /// A line's `local_id` is not a line of this order.
    UnknownLine(i64),
    /// Two lines carry the same `local_id`.
    DuplicateLine(i64),
    /// The same id is listed twice.
    Repeated(i64),
    /// The silobag lies in another establishment than the one the body names.
    SilobagElsewhere {
        /// The silobag.
        silobag_id: i64,
        /// The establishment the body names.
        establishment_id: i64,
    },
    /// A value of the wrong type: what was expected, and what was sent.
    WrongType {
        /// What the field holds.
        expected: Expected,
        /// What was sent, as written.
        sent: String,
    },
    /// The referenced record, named by its code, is not one of the caller's (or its country's) live records; the
    /// code sent.
    UnknownCode(String),
    /// A reference names a record by id and by code, and they are two records: the id, and the code.
    Mismatch {
        /// The id sent.
        id: i64,
        /// The code sent.
        code: String,
    },
    /// An imported file's column that its resource does not have; the columns it has, as the message lists them.
    UnknownColumn(String),
    /// An imported file names this column twice.
    RepeatedColumn,
    /// An imported file lacks a column its resource requires.
    MissingColumn,
    /// The same `external_code` is in another row of the imported file.
    RepeatedInFile {
        /// The code.
        code: String,
        /// The other row.
        row: u64,
    },
    /// A row of an imported file that cannot be read; the reader's words.
    Malformed(String),
    /// A CSV row with another number of cells than its header has columns.
    Cells {
        /// Cells in the row.
        found: usize,
        /// Columns in the header.
        expected: usize,
    },
    /// A JSONL line that is JSON but not an object.
    NotAnObject,
    /// An imported file with nothing in it, not even a header.
    EmptyFile,
    /// Bytes that are not text in the file's encoding; the encoding.
    NotText(&'static str),
    /// Not an absolute URL with a host.
    NotAUrl,
    /// A URL of a scheme this server does not deliver to; the schemes it does, as the message lists them.
    SchemeNotAllowed(&'static str),
    /// A URL whose host is, or resolves to, an address deliveries may not reach: the address, and why.
    AddressRefused {
        /// The address (or the host name that reaches it).
        address: String,
        /// What kind of address it is.
        kind: crate::webhooks::RefusedAddress,
    },
    /// An event type no resource emits; what was sent.
    UnknownEventType(String),
    /// A text longer than allowed; the most characters allowed.
    TooLong(usize),
    /// An external code holding a character that shows nothing (a zero-width space, a control character); the
    /// first such character.
    Invisible(char),
}

impl Rule {
    /// Every rule's [`Rule::reason`], in the order the rules are declared: the vocabulary of `errors[].reason`.
    pub const REASONS: &'static [&'static str] = &[
        "not_third_party",
        "not_your_company",
        "blank",
        "not_positive",
        "too_small",
        "out_of_range",
        "not_one_of",
        "required_for_kind",
        "not_for_kind",
        "not_a_campaign",
        "unknown_reference",
        "unknown_line",
        "duplicate_line",
        "repeated",
        "silobag_elsewhere",
        "wrong_type",
        "unknown_code",
        "id_code_mismatch",
        "unknown_column",
        "repeated_column",
        "missing_column",
        "repeated_in_file",
        "malformed_row",
        "wrong_cell_count",
        "not_an_object",
        "empty_file",
        "not_text",
        "not_a_url",
        "scheme_not_allowed",
        "address_refused",
        "unknown_event_type",
        "too_long",
        "invisible_character",
    ];

    /// What is wrong, as a program reads it: a stable snake_case name, the same in every language (the wire's
    /// `errors[].reason`). Its words, with the values, are the server's.
    pub fn reason(&self) -> &'static str {
        match self {
            Rule::SystemId(_) => "not_third_party",
            Rule::Company { .. } => "not_your_company",
            Rule::Blank => "blank",
            Rule::NotPositive(_) => "not_positive",
            Rule::TooSmall { .. } => "too_small",
            Rule::OutOfRange { .. } => "out_of_range",
            Rule::NotOneOf(_) => "not_one_of",
            Rule::RequiredForKind(_) => "required_for_kind",
            Rule::NotForKind(_) => "not_for_kind",
            Rule::NotACampaign { .. } => "not_a_campaign",
            Rule::Unknown(_) => "unknown_reference",
            Rule::UnknownLine(_) => "unknown_line",
            Rule::DuplicateLine(_) => "duplicate_line",
            Rule::Repeated(_) => "repeated",
            Rule::SilobagElsewhere { .. } => "silobag_elsewhere",
            Rule::WrongType { .. } => "wrong_type",
            Rule::UnknownCode(_) => "unknown_code",
            Rule::Mismatch { .. } => "id_code_mismatch",
            Rule::UnknownColumn(_) => "unknown_column",
            Rule::RepeatedColumn => "repeated_column",
            Rule::MissingColumn => "missing_column",
            Rule::RepeatedInFile { .. } => "repeated_in_file",
            Rule::Malformed(_) => "malformed_row",
            Rule::Cells { .. } => "wrong_cell_count",
            Rule::NotAnObject => "not_an_object",
            Rule::EmptyFile => "empty_file",
            Rule::NotText(_) => "not_text",
            Rule::NotAUrl => "not_a_url",
            Rule::SchemeNotAllowed(_) => "scheme_not_allowed",
            Rule::AddressRefused { .. } => "address_refused",
            Rule::UnknownEventType(_) => "unknown_event_type",
            Rule::TooLong(_) => "too_long",
            Rule::Invisible(_) => "invisible_character",
        }
    }
}

/// What a field holds, as a wrong-type message names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// Text.
    Text,
    /// A number.
    Number,
    /// A whole number.
    Integer,
    /// A boolean: true or false, 1 or 0, yes or no.
    Boolean,
    /// A date, `YYYY-MM-DD`.
    Date,
}

/// A broken rule and where: a JSON path such as `supplies[2].area_applied`, `name` or `[3].device_id`.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// Where in the body.
    pub path: String,
    /// What is wrong.
    pub rule: Rule,
}

impl Violation {
    /// A violation at `path`.
    pub fn new(path: impl Into<String>, rule: Rule) -> Self {
        Self {
            path: path.into(),
            rule,
        }
    }

    /// The same violation inside item `index` of a batch: `[index].path`.
    pub fn in_item(self, index: usize) -> Self {
        Self {
            path: format!("[{index}].{}", self.path),
            rule: self.rule,
        }
    }
}

/// Why a write was refused as a whole; nothing of it was stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The body breaks these rules: every one found, in body order.
    Invalid(Vec<Violation>),
    /// A batch carries more items than one request may.
    TooManyItems {
        /// How many were sent.
        sent: usize,
        /// The most allowed.
        max: usize,
    },
    /// The record written or deleted is not a live record of the caller's society.
    NotFound,
    /// The record still has live dependants: their resource, and how many.
    HasDependants {
        /// The dependants' resource (their table's name).
        resource: &'static str,
        /// How many.
        count: i64,
    },
    /// The record is read-only (a work order's `is_read_only`).
    ReadOnly,
    /// `If-Match` named a version the record no longer has.
    Stale,
    /// Another live work order of the society already has this `external_id`; its `local_id`.
    DuplicateExternalId(i64),
    /// Another live record of the resource written already has this `external_code`; its id.
    DuplicateExternalCode(i64),
}

impl Refusal {
    /// This refusal of a body for its own rules, with the violations the rules about the records it names found
    /// (`references`), all in body order: `fields` lists the body's keys in the order its schema gives them. So one
    /// answer names every broken rule, though the body's own were found before the store was asked. A reference
    /// refusal of another kind (an external id taken) is left out: a body that breaks its own rules is answered
    /// for them first.
    pub fn with_references(self, references: Result<(), Refusal>, fields: &[&str]) -> Refusal {
        match (self, references) {
            (Refusal::Invalid(mut violations), Err(Refusal::Invalid(found))) => {
                violations.extend(found);
                violations.sort_by(|a, b| body_place(&a.path, fields).cmp(body_place(&b.path, fields)));
                Refusal::Invalid(violations)
            }
            (refusal, _) => refusal,
        }
    }
}

/// Where `path` (`labours[0].machines[1].local_id`) lies in a body whose keys come in the order of `fields`, as a
/// sequence to compare: an index by its number, a key by its place in `fields` (one not listed after those listed).
fn body_place<'p>(path: &'p str, fields: &'p [&str]) -> impl Iterator<Item = (u8, usize)> + 'p {
    path.split(['.', '['])
        .filter(|segment| !segment.is_empty())
        .map(
            |segment| match segment.strip_suffix(']').and_then(|index| index.parse().ok()) {
                Some(index) => (0, index),
                None => (
                    1,
                    fields
                        .iter()
                        .position(|field| *field == segment)
                        .unwrap_or(fields.len()),
                ),
            },
        )
}

/// The outcome of checking a body: nothing wrong, or every violation found.
pub fn verdict(violations: Vec<Violation>) -> Result<(), Refusal> {
    if violations.is_empty() {
        Ok(())
    } else {
        Err(Refusal::Invalid(violations))
    }
}

/// The smallest quantity stored as it is sent: the least normal `f64`. A subnormal number below it keeps fewer
/// significant digits than it was written with, and some databases and clients flush it to zero.
pub const MIN_QUANTITY: f64 = f64::MIN_POSITIVE;

/// Whether `value` is a finite number of at least [`MIN_QUANTITY`]: above zero, and stored as it is sent.
pub fn positive(value: f64) -> bool {
    value.is_finite() && value >= MIN_QUANTITY
}

/// Checks that `value` is a finite number of at least `min` (itself above zero), pushing the broken rule at `path`:
/// nothing above zero (`0`, negatives, NaN, infinities) is [`Rule::NotPositive`]; above zero but below `min` is
/// [`Rule::TooSmall`]. Answers whether it held.
pub fn check_at_least(path: &str, value: f64, min: f64, violations: &mut Vec<Violation>) -> bool {
    if !(value.is_finite() && value > 0.0) {
        violations.push(Violation::new(path, Rule::NotPositive(value)));
        false
    } else if value < min {
        violations.push(Violation::new(path, Rule::TooSmall { sent: value, min }));
        false
    } else {
        true
    }
}

/// Checks that `value` is a positive quantity stored as it is sent (at least [`MIN_QUANTITY`]).
pub fn check_positive(path: &str, value: f64, violations: &mut Vec<Violation>) {
    check_at_least(path, value, MIN_QUANTITY, violations);
}

/// Checks that `value` is a number of hectares from [`crate::MIN_HECTARES`] to [`crate::MAX_HECTARES`].
pub fn check_hectares(path: &str, value: f64, violations: &mut Vec<Violation>) {
    if check_at_least(path, value, crate::MIN_HECTARES, violations) && value > crate::MAX_HECTARES {
        let rule = Rule::OutOfRange {
            min: crate::MIN_HECTARES,
            max: crate::MAX_HECTARES,
        };
        violations.push(Violation::new(path, rule));
    }
}

/// Checks that a required text is not blank.
pub fn check_required(path: &str, value: &str, violations: &mut Vec<Violation>) {
    if value.trim().is_empty() {
        violations.push(Violation::new(path, Rule::Blank));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One of every rule.
    fn every_rule() -> Vec<Rule> {
        vec![
            Rule::SystemId("x".into()),
            Rule::Company { sent: 1, expected: 2 },
            Rule::Blank,
            Rule::NotPositive(0.0),
            Rule::TooSmall {
                sent: 1e-320,
                min: MIN_QUANTITY,
            },
            Rule::OutOfRange { min: 0.0, max: 1.0 },
            Rule::NotOneOf("a, b"),
            Rule::RequiredForKind("silo"),
            Rule::NotForKind("silo"),
            Rule::NotACampaign {
                id: 1,
                species: false,
                cultivation: false,
            },
            Rule::Unknown(1),
            Rule::UnknownLine(1),
            Rule::DuplicateLine(1),
            Rule::Repeated(1),
            Rule::SilobagElsewhere {
                silobag_id: 1,
                establishment_id: 2,
            },
            Rule::WrongType {
                expected: Expected::Number,
                sent: "x".into(),
            },
            Rule::UnknownCode("x".into()),
            Rule::Mismatch {
                id: 1,
                code: "x".into(),
            },
            Rule::UnknownColumn("x".into()),
            Rule::RepeatedColumn,
            Rule::MissingColumn,
            Rule::RepeatedInFile {
                code: "x".into(),
                row: 1,
            },
            Rule::Malformed("x".into()),
            Rule::Cells { found: 1, expected: 2 },
            Rule::NotAnObject,
            Rule::EmptyFile,
            Rule::NotText("UTF-8"),
            Rule::NotAUrl,
            Rule::SchemeNotAllowed("https"),
            Rule::AddressRefused {
                address: "127.0.0.1".into(),
                kind: crate::webhooks::RefusedAddress::Loopback,
            },
            Rule::UnknownEventType("x".into()),
            Rule::TooLong(10),
            Rule::Invisible('\u{200b}'),
        ]
    }

    #[test]
    fn every_rule_has_its_own_reason_and_the_list_names_them_all_in_order() {
        let reasons: Vec<&str> = every_rule().iter().map(Rule::reason).collect();
        assert_eq!(reasons, Rule::REASONS);
        let mut distinct = reasons.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), reasons.len(), "one reason per rule");
        for reason in reasons {
            assert!(
                !reason.is_empty() && reason.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{reason} is snake_case"
            );
        }
    }

    #[test]
    fn an_item_of_a_batch_is_named_by_its_index() {
        let violation = Violation::new("device_id", Rule::Unknown(4)).in_item(3);
        assert_eq!(violation.path, "[3].device_id");
    }

    #[test]
    fn hectares_must_be_positive_and_bounded() {
        let mut violations = Vec::new();
        for area in [12.5, crate::MAX_HECTARES] {
            check_hectares("area", area, &mut violations);
        }
        assert!(violations.is_empty());
        for area in [0.0, -1.0, f64::NAN, crate::MAX_HECTARES * 2.0] {
            check_hectares("area", area, &mut violations);
        }
        assert_eq!(violations.len(), 4);
        assert_eq!(verdict(Vec::new()), Ok(()));
    }

    #[test]
    fn a_quantity_that_would_not_be_stored_as_sent_is_too_small() {
        // 1e-320 is subnormal, and an area of 0.004 ha is kept as 0.00: both are above zero, neither survives.
        for (value, min) in [(1e-320, MIN_QUANTITY), (5e-324, MIN_QUANTITY)] {
            let mut violations = Vec::new();
            check_positive("total_applied", value, &mut violations);
            assert_eq!(
                violations,
                [Violation::new("total_applied", Rule::TooSmall { sent: value, min })]
            );
            assert!(!positive(value), "{value:e}");
        }
        for area in [1e-320, 0.004, 0.009_999] {
            let mut violations = Vec::new();
            check_hectares("area", area, &mut violations);
            let rule = Rule::TooSmall {
                sent: area,
                min: crate::MIN_HECTARES,
            };
            assert_eq!(violations, [Violation::new("area", rule)], "{area}");
        }
        let mut violations = Vec::new();
        check_positive("quantity_tn", MIN_QUANTITY, &mut violations);
        check_positive("quantity_tn", 1e-300, &mut violations);
        check_hectares("area", crate::MIN_HECTARES, &mut violations);
        assert!(violations.is_empty(), "{violations:?}");
        check_positive("quantity_tn", -0.0, &mut violations);
        assert_eq!(violations, [Violation::new("quantity_tn", Rule::NotPositive(-0.0))]);
    }

    #[test]
    fn a_bodys_own_violations_and_its_references_join_in_body_order() {
        let fields = ["name", "establishment_id", "area", "labours", "machines", "local_id"];
        let own = Refusal::Invalid(vec![
            Violation::new("area", Rule::NotPositive(-1.0)),
            Violation::new("labours[10].machines[0].local_id", Rule::Repeated(4)),
            Violation::new("name", Rule::Blank),
        ]);
        let references = Err(Refusal::Invalid(vec![
            Violation::new("establishment_id", Rule::Unknown(9)),
            Violation::new("labours[2].machines[1].local_id", Rule::Unknown(4)),
        ]));
        let paths = match own.clone().with_references(references, &fields) {
            Refusal::Invalid(violations) => violations.into_iter().map(|v| v.path).collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            paths,
            [
                "name",
                "establishment_id",
                "area",
                "labours[2].machines[1].local_id",
                "labours[10].machines[0].local_id"
            ]
        );
        assert_eq!(own.clone().with_references(Ok(()), &fields), own);
        let taken = Err(Refusal::DuplicateExternalId(3));
        assert_eq!(
            own.clone().with_references(taken, &fields),
            own,
            "the body's own rules answer first"
        );
        let too_many = Refusal::TooManyItems { sent: 2, max: 1 };
        let unknown = Err(Refusal::Invalid(vec![Violation::new(
            "[0].device_id",
            Rule::Unknown(1),
        )]));
        assert_eq!(too_many.clone().with_references(unknown, &fields), too_many);
    }
}
