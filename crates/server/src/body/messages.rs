//! Why a body was refused, and its words in Spanish, Portuguese and English: the place (a JSON path such as
//! `supplies[0].area_applied`) and the JSON types involved, never the parser's own text or a Rust type name.

use std::fmt;
use std::ops::BitOr;

use domain::Lang;

use super::Segment;

/// The JSON type of a value that was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    /// `{…}`.
    Object,
    /// `[…]`.
    Array,
    /// `"…"`.
    Text,
    /// A number without a fraction or exponent.
    Integer,
    /// A number with a fraction or exponent.
    Fraction,
    /// `true` or `false`.
    Boolean,
    /// `null`.
    Null,
}

/// The JSON types a place of a body takes, as a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected(u8);

impl Expected {
    /// Nothing known.
    pub const NONE: Self = Self(0);
    /// An object.
    pub const OBJECT: Self = Self(1);
    /// An array.
    pub const ARRAY: Self = Self(1 << 1);
    /// A string.
    pub const TEXT: Self = Self(1 << 2);
    /// A date-time string.
    pub const DATE_TIME: Self = Self(1 << 3);
    /// An integer.
    pub const INTEGER: Self = Self(1 << 4);
    /// Any number.
    pub const NUMBER: Self = Self(1 << 5);
    /// A boolean.
    pub const BOOLEAN: Self = Self(1 << 6);
    /// `null`.
    pub const NULL: Self = Self(1 << 7);

    /// In the order messages list them.
    const ALL: [Self; 8] = [
        Self::OBJECT,
        Self::ARRAY,
        Self::DATE_TIME,
        Self::TEXT,
        Self::NUMBER,
        Self::INTEGER,
        Self::BOOLEAN,
        Self::NULL,
    ];

    fn has(self, other: Self) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }

    /// The members worth naming: an integer is a number, so "a number" alone says it.
    fn members(self) -> impl Iterator<Item = Self> {
        Self::ALL
            .into_iter()
            .filter(move |&member| self.has(member) && !(member == Self::INTEGER && self.has(Self::NUMBER)))
    }
}

impl BitOr for Expected {
    type Output = Self;

    fn bitor(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

/// What is wrong at a place of a body.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// A value of another JSON type than the schema's.
    WrongType {
        /// What the schema takes.
        expected: Expected,
        /// What was sent.
        found: JsonKind,
    },
    /// A required property is absent (the path names it).
    Missing,
    /// A work order's `supplies` or `labours` is absent (the path names it). A write carries the whole order, so
    /// the message says what an empty list does, for an integrator who took the write for a merge.
    MissingLines,
    /// A string that should be an RFC 3339 date-time with an offset and does not parse as one.
    NotDateTime,
    /// A string that holds the NUL character, which no text of the API may hold.
    Nul,
    /// A value of the right JSON type that the server cannot take, such as an integer too large to store.
    Unacceptable {
        /// What the schema takes.
        expected: Expected,
    },
    /// Not JSON at all; the line and column where it stops being JSON. Nothing after it can be read, so it is the
    /// body's only problem.
    Syntax { line: usize, column: usize },
    /// JSON cut short, e.g. a truncated upload; the body's only problem.
    Truncated { line: usize, column: usize },
}

impl Problem {
    /// The machine-readable name of the problem, the same in every language.
    pub fn reason(&self) -> &'static str {
        match self {
            Problem::WrongType { .. } => "wrong_type",
            Problem::Missing | Problem::MissingLines => "missing_field",
            Problem::NotDateTime => "not_a_date_time",
            Problem::Nul => "nul_character",
            Problem::Unacceptable { .. } => "unacceptable_value",
            Problem::Syntax { .. } | Problem::Truncated { .. } => "malformed_json",
        }
    }

    /// The problem at `path` (as [`BodyError::problems`] writes it; empty for the body itself), in `lang`: one clause,
    /// as the whole message lists it (`header.date debe ser …`).
    pub fn text(&self, path: &str, lang: Lang) -> String {
        problem_text(path, self, lang)
    }
}

/// The most problems a refusal lists. A body can hold as many mistakes as it has values, and a hostile one must not
/// make the answer grow with it: the check stops at the first problem beyond, and the message says more were left out.
pub const MAX_PROBLEMS: usize = 100;

/// Advice about the whole body, put into words after its problems (by `crate::i18n`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    /// A work-order PATCH that lacks required parts: a PATCH carries the whole order, as a `GET` of it (named by its
    /// `local_id`, as the path sent it) answers it.
    WholeOrder { local_id: String },
}

/// A body the server refuses, and why: every problem found, in body order, each with its place.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyError {
    /// Each problem with its path from the body's root; never empty, at most [`MAX_PROBLEMS`].
    problems: Vec<(Vec<Segment<String>>, Problem)>,
    /// Whether the body has more problems than are listed.
    more: bool,
    /// Advice after the problems.
    hint: Option<Hint>,
}

impl BodyError {
    /// The problems found, in body order; `more` when the body has others beyond them. `problems` is never empty.
    pub(super) fn new(problems: Vec<(Vec<Segment<String>>, Problem)>, more: bool) -> Self {
        Self {
            problems,
            more,
            hint: None,
        }
    }

    /// One problem, at `path`.
    pub fn at(path: Vec<Segment<String>>, problem: Problem) -> Self {
        Self::new(vec![(path, problem)], false)
    }

    /// Each problem of the body with its JSON path (`header.date`, `supplies[2].area_applied`; empty for the body
    /// itself), in body order. A body that is not JSON has one: where it stops being JSON.
    pub fn problems(&self) -> impl Iterator<Item = (String, &Problem)> {
        self.problems
            .iter()
            .map(|(path, problem)| (JsonPath(path).to_string(), problem))
    }

    /// Whether the body has more problems than [`Self::problems`] lists (it lists [`MAX_PROBLEMS`]).
    pub fn more(&self) -> bool {
        self.more
    }

    /// Whether the body is not JSON, or stops before its end.
    pub fn malformed(&self) -> bool {
        self.problems
            .iter()
            .any(|(_, problem)| matches!(problem, Problem::Syntax { .. } | Problem::Truncated { .. }))
    }

    /// Advice about the whole body, if any.
    pub fn hint(&self) -> Option<&Hint> {
        self.hint.as_ref()
    }

    /// The same refusal, with `hint`.
    pub fn with_hint(self, hint: Hint) -> Self {
        Self {
            hint: Some(hint),
            ..self
        }
    }

    /// The same refusal, with each problem replaced by what `change` makes of it and its path.
    pub fn map_problems(self, mut change: impl FnMut(&[Segment<String>], Problem) -> Problem) -> Self {
        let problems = self
            .problems
            .into_iter()
            .map(|(path, problem)| {
                let problem = change(&path, problem);
                (path, problem)
            })
            .collect();
        Self { problems, ..self }
    }
}

/// A JSON path as integrators read it: `header.date`, `supplies[0].area_applied`, `[3].value`.
struct JsonPath<'p>(&'p [Segment<String>]);

impl fmt::Display for JsonPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (position, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(key) if position == 0 => f.write_str(key)?,
                Segment::Key(key) => write!(f, ".{key}")?,
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

const DATE_TIME_EXAMPLE: &str = "2025-10-02T08:00:00-03:00";

fn expected_word(expected: Expected, lang: Lang) -> String {
    match (expected, lang) {
        (Expected::OBJECT, Lang::Es) => "un objeto".into(),
        (Expected::OBJECT, Lang::Pt) => "um objeto".into(),
        (Expected::OBJECT, Lang::En) => "an object".into(),
        (Expected::ARRAY, Lang::Es) => "un arreglo".into(),
        (Expected::ARRAY, Lang::Pt) => "uma lista".into(),
        (Expected::ARRAY, Lang::En) => "an array".into(),
        (Expected::DATE_TIME, Lang::Es) => {
            format!("una fecha y hora (texto ISO 8601 con zona horaria, p. ej. {DATE_TIME_EXAMPLE})")
        }
        (Expected::DATE_TIME, Lang::Pt) => {
            format!("uma data e hora (texto ISO 8601 com fuso horário, p. ex. {DATE_TIME_EXAMPLE})")
        }
        (Expected::DATE_TIME, Lang::En) => {
            format!("a date and time (an ISO 8601 string with an offset, e.g. {DATE_TIME_EXAMPLE})")
        }
        (Expected::TEXT, Lang::Es) => "un texto".into(),
        (Expected::TEXT, Lang::Pt) => "um texto".into(),
        (Expected::TEXT, Lang::En) => "a string".into(),
        (Expected::NUMBER, Lang::Es) => "un número".into(),
        (Expected::NUMBER, Lang::Pt) => "um número".into(),
        (Expected::NUMBER, Lang::En) => "a number".into(),
        (Expected::INTEGER, Lang::Es) => "un número entero".into(),
        (Expected::INTEGER, Lang::Pt) => "um número inteiro".into(),
        (Expected::INTEGER, Lang::En) => "an integer".into(),
        (Expected::BOOLEAN, Lang::Es) => "un booleano (true o false)".into(),
        (Expected::BOOLEAN, Lang::Pt) => "um booleano (true ou false)".into(),
        (Expected::BOOLEAN, Lang::En) => "a boolean (true or false)".into(),
        (_, _) => "null".into(),
    }
}

fn found_word(found: JsonKind, lang: Lang) -> String {
    match (found, lang) {
        (JsonKind::Object, _) => expected_word(Expected::OBJECT, lang),
        (JsonKind::Array, _) => expected_word(Expected::ARRAY, lang),
        (JsonKind::Text, _) => expected_word(Expected::TEXT, lang),
        (JsonKind::Integer, _) => expected_word(Expected::INTEGER, lang),
        (JsonKind::Fraction, Lang::Es) => "un número con decimales".into(),
        (JsonKind::Fraction, Lang::Pt) => "um número com casas decimais".into(),
        (JsonKind::Fraction, Lang::En) => "a number with a fraction".into(),
        (JsonKind::Boolean, _) => expected_word(Expected::BOOLEAN, lang),
        (JsonKind::Null, _) => "null".into(),
    }
}

/// "un texto o null", "a string or null".
fn expected_words(expected: Expected, lang: Lang) -> String {
    let words: Vec<String> = expected.members().map(|member| expected_word(member, lang)).collect();
    let or = match lang {
        Lang::Es => " o ",
        Lang::Pt => " ou ",
        Lang::En => " or ",
    };
    match words.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{}{or}{last}", rest.join(", ")),
        None => match lang {
            Lang::Es => "otro valor".into(),
            Lang::Pt => "outro valor".into(),
            Lang::En => "another value".into(),
        },
    }
}

impl BodyError {
    /// The message in `lang`, naming every problem listed, separated by `; `, and saying so when there are more.
    /// A [`Hint`] is not part of it: `crate::i18n` adds its words.
    pub fn text(&self, lang: Lang) -> String {
        let mut detail = self
            .problems()
            .map(|(path, problem)| problem_text(&path, problem, lang))
            .collect::<Vec<_>>()
            .join("; ");
        if self.more {
            detail.push_str(&match lang {
                Lang::Es => format!("; y otros problemas, que no se listan (se listan los primeros {MAX_PROBLEMS})"),
                Lang::Pt => {
                    format!("; e outros problemas, que não são listados (são listados os primeiros {MAX_PROBLEMS})")
                }
                Lang::En => format!("; and more problems, not listed (the first {MAX_PROBLEMS} are)"),
            });
        }
        match lang {
            Lang::Es => format!("El cuerpo de la solicitud no es válido: {detail}."),
            Lang::Pt => format!("O corpo da requisição não é válido: {detail}."),
            Lang::En => format!("The request body is not valid: {detail}."),
        }
    }
}

fn problem_text(path: &str, problem: &Problem, lang: Lang) -> String {
    // The body's root has no path: the sentence is about the body itself.
    let root = path.is_empty();
    match (problem, lang) {
        (Problem::Syntax { line, column }, Lang::Es) => format!("no es JSON (línea {line}, columna {column})"),
        (Problem::Syntax { line, column }, Lang::Pt) => format!("não é JSON (linha {line}, coluna {column})"),
        (Problem::Syntax { line, column }, Lang::En) => format!("it is not JSON (line {line}, column {column})"),
        (Problem::Truncated { line, column }, Lang::Es) => {
            format!("el JSON termina antes de completarse (línea {line}, columna {column})")
        }
        (Problem::Truncated { line, column }, Lang::Pt) => {
            format!("o JSON termina antes de se completar (linha {line}, coluna {column})")
        }
        (Problem::Truncated { line, column }, Lang::En) => {
            format!("the JSON ends before it is complete (line {line}, column {column})")
        }
        (Problem::WrongType { expected, found }, Lang::Es) => {
            let (expected, found) = (expected_words(*expected, lang), found_word(*found, lang));
            if root {
                format!("debe ser {expected}, pero se recibió {found}")
            } else {
                format!("{path} debe ser {expected}, pero se recibió {found}")
            }
        }
        (Problem::WrongType { expected, found }, Lang::Pt) => {
            let (expected, found) = (expected_words(*expected, lang), found_word(*found, lang));
            if root {
                format!("deve ser {expected}, mas foi recebido {found}")
            } else {
                format!("{path} deve ser {expected}, mas foi recebido {found}")
            }
        }
        (Problem::WrongType { expected, found }, Lang::En) => {
            let (expected, found) = (expected_words(*expected, lang), found_word(*found, lang));
            if root {
                format!("it must be {expected}, but {found} was sent")
            } else {
                format!("{path} must be {expected}, but {found} was sent")
            }
        }
        (Problem::Missing, Lang::Es) => format!("falta el campo obligatorio {path}"),
        (Problem::Missing, Lang::Pt) => format!("falta o campo obrigatório {path}"),
        (Problem::Missing, Lang::En) => format!("the required field {path} is missing"),
        (Problem::MissingLines, Lang::Es) => format!(
            "falta el campo obligatorio {path}; una escritura lleva la orden entera (header, supplies y labours), y \
             una lista vacía ([]) elimina todas las líneas"
        ),
        (Problem::MissingLines, Lang::Pt) => format!(
            "falta o campo obrigatório {path}; uma escrita leva a ordem inteira (header, supplies e labours), e uma \
             lista vazia ([]) remove todas as linhas"
        ),
        (Problem::MissingLines, Lang::En) => format!(
            "the required field {path} is missing; a write carries the whole order (header, supplies and labours), \
             and an empty list ([]) removes every line"
        ),
        (Problem::Nul, Lang::Es) => format!("{path} contiene el carácter NUL (\\u0000)"),
        (Problem::Nul, Lang::Pt) => format!("{path} contém o caractere NUL (\\u0000)"),
        (Problem::Nul, Lang::En) => format!("{path} holds the NUL character (\\u0000)"),
        (Problem::NotDateTime, _) => {
            let expected = expected_word(Expected::DATE_TIME, lang);
            match lang {
                Lang::Es => format!("{path} debe ser {expected}"),
                Lang::Pt => format!("{path} deve ser {expected}"),
                Lang::En => format!("{path} must be {expected}"),
            }
        }
        (Problem::Unacceptable { expected }, _) => {
            let expected = expected_words(*expected, lang);
            match (lang, root) {
                (Lang::Es, true) => format!("el valor no es aceptable; debe ser {expected}"),
                (Lang::Es, false) => format!("{path} no tiene un valor aceptable; debe ser {expected}"),
                (Lang::Pt, true) => format!("o valor não é aceitável; deve ser {expected}"),
                (Lang::Pt, false) => format!("{path} não tem um valor aceitável; deve ser {expected}"),
                (Lang::En, true) => format!("the value is not acceptable; it must be {expected}"),
                (Lang::En, false) => format!("{path} has no acceptable value; it must be {expected}"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(path: &[Segment<&str>]) -> Vec<Segment<String>> {
        path.iter().map(|segment| segment.map(str::to_owned)).collect()
    }

    fn at(path: &[Segment<&str>], problem: Problem) -> BodyError {
        BodyError::at(owned(path), problem)
    }

    #[test]
    fn a_wrong_type_names_the_path_and_both_json_types_in_each_language() {
        let error = at(
            &[
                Segment::Key("supplies"),
                Segment::Index(0),
                Segment::Key("area_applied"),
            ],
            Problem::WrongType {
                expected: Expected::NUMBER,
                found: JsonKind::Text,
            },
        );
        assert_eq!(
            error.text(Lang::Es),
            "El cuerpo de la solicitud no es válido: supplies[0].area_applied debe ser un número, pero se recibió un \
             texto."
        );
        assert_eq!(
            error.text(Lang::Pt),
            "O corpo da requisição não é válido: supplies[0].area_applied deve ser um número, mas foi recebido um \
             texto."
        );
        assert_eq!(
            error.text(Lang::En),
            "The request body is not valid: supplies[0].area_applied must be a number, but a string was sent."
        );
    }

    #[test]
    fn alternatives_are_listed_and_an_integer_is_not_named_beside_a_number() {
        let error = at(
            &[],
            Problem::WrongType {
                expected: Expected::OBJECT | Expected::ARRAY,
                found: JsonKind::Fraction,
            },
        );
        assert_eq!(
            error.text(Lang::Es),
            "El cuerpo de la solicitud no es válido: debe ser un objeto o un arreglo, pero se recibió un número con \
             decimales."
        );
        let error = at(
            &[Segment::Index(3), Segment::Key("value")],
            Problem::WrongType {
                expected: Expected::INTEGER | Expected::NUMBER | Expected::NULL,
                found: JsonKind::Boolean,
            },
        );
        assert_eq!(
            error.text(Lang::En),
            "The request body is not valid: [3].value must be a number or null, but a boolean (true or false) was \
             sent."
        );
    }

    #[test]
    fn missing_fields_dates_sets_and_syntax_read_naturally() {
        let date = [Segment::Key("header"), Segment::Key("date")];
        assert_eq!(
            at(&date, Problem::Missing).text(Lang::Pt),
            "O corpo da requisição não é válido: falta o campo obrigatório header.date."
        );
        assert_eq!(
            at(&[Segment::Key("supplies")], Problem::MissingLines).text(Lang::Es),
            "El cuerpo de la solicitud no es válido: falta el campo obligatorio supplies; una escritura lleva la \
             orden entera (header, supplies y labours), y una lista vacía ([]) elimina todas las líneas."
        );
        assert_eq!(
            at(&date, Problem::NotDateTime).text(Lang::Es),
            "El cuerpo de la solicitud no es válido: header.date debe ser una fecha y hora (texto ISO 8601 con zona \
             horaria, p. ej. 2025-10-02T08:00:00-03:00)."
        );
        assert_eq!(
            at(&[], Problem::Truncated { line: 1, column: 9 }).text(Lang::Es),
            "El cuerpo de la solicitud no es válido: el JSON termina antes de completarse (línea 1, columna 9)."
        );
        assert_eq!(
            at(&[], Problem::Syntax { line: 2, column: 4 }).text(Lang::Pt),
            "O corpo da requisição não é válido: não é JSON (linha 2, coluna 4)."
        );
    }

    #[test]
    fn every_problem_is_named_in_one_message_and_a_cut_list_says_so() {
        let wrong = Problem::WrongType {
            expected: Expected::NUMBER,
            found: JsonKind::Text,
        };
        let problems = vec![
            (owned(&[Segment::Key("header"), Segment::Key("date")]), Problem::Missing),
            (
                owned(&[
                    Segment::Key("supplies"),
                    Segment::Index(2),
                    Segment::Key("area_applied"),
                ]),
                wrong,
            ),
        ];
        let error = BodyError::new(problems, false);
        assert_eq!(
            error.problems().map(|(path, _)| path).collect::<Vec<_>>(),
            ["header.date", "supplies[2].area_applied"]
        );
        assert_eq!(
            error.text(Lang::Es),
            "El cuerpo de la solicitud no es válido: falta el campo obligatorio header.date; supplies[2].area_applied \
             debe ser un número, pero se recibió un texto."
        );
        let cut = BodyError::new(vec![(owned(&[Segment::Key("name")]), Problem::Missing)], true);
        assert!(cut.more());
        assert_eq!(
            cut.text(Lang::En),
            "The request body is not valid: the required field name is missing; and more problems, not listed (the \
             first 100 are)."
        );
        let syntax = at(&[], Problem::Syntax { line: 1, column: 2 });
        assert!(syntax.malformed() && !error.malformed());
        assert_eq!(syntax.problems().count(), 1);
    }
}
