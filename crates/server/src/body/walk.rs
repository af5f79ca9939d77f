//! The check of a body's JSON against its compiled schema: one pass over the bytes that allocates nothing while the
//! body fits (like `serde::de::IgnoredAny`, which it uses for what the schema leaves open). A value that does not fit
//! is recorded with its path and skipped, and the pass goes on, so one answer names every problem of the body, up to
//! [`MAX_PROBLEMS`]; the first problem beyond ends the pass. The path to the value being checked is a chain of steps
//! on the stack, turned into a path of its own only for a value that does not fit.

use std::cell::RefCell;
use std::fmt;

use chrono::DateTime;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserializer;

use super::messages::{JsonKind, Problem, MAX_PROBLEMS};
use super::schema::{Compiled, Property, Shape, ShapeId};
use super::Segment;

/// What the check found.
#[derive(Debug, Default)]
pub struct Trail {
    /// Each mismatch, in body order, with its path; at most [`MAX_PROBLEMS`]. Empty when the body fits (or when the
    /// parser itself failed first: a syntax error or a truncated body).
    pub problems: Vec<(Vec<Segment<String>>, Problem)>,
    /// Whether a mismatch beyond [`MAX_PROBLEMS`] was met, which ended the pass.
    pub more: bool,
    /// Whether an integer place holds a number written with a fraction of zero (`764.0`): JSON Schema counts it as
    /// an integer, so it is taken, but the typed parse needs it rewritten first.
    pub integral_fraction: bool,
}

/// One step of the path from the body's root to a value, linked to the step before it. Keys borrow the schema's
/// property names, so a body that fits builds no path.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    segment: Segment<&'a str>,
    parent: Option<&'a Step<'a>>,
}

/// Checks the value `deserializer` reads against shape `shape` of `schemas`, at `path`; each mismatch goes into
/// `trail`.
#[derive(Clone, Copy)]
pub struct Walk<'a> {
    pub schemas: &'a Compiled,
    pub shape: ShapeId,
    pub trail: &'a RefCell<Trail>,
    /// The last step of the path to the value checked; `None` at the body's root.
    pub path: Option<&'a Step<'a>>,
}

impl<'a> Walk<'a> {
    /// The walk of a value one `step` further in, of shape `shape`.
    fn inner<'b>(self, step: &'b Step<'b>, shape: ShapeId) -> Walk<'b>
    where
        'a: 'b,
    {
        Walk {
            schemas: self.schemas,
            shape,
            trail: self.trail,
            path: Some(step),
        }
    }

    /// The path to here, then `last` if given, as the refusal names it.
    fn owned_path(self, last: Option<Segment<&str>>) -> Vec<Segment<String>> {
        let mut reversed: Vec<Segment<String>> = last.into_iter().map(|segment| segment.map(str::to_owned)).collect();
        let mut step = self.path;
        while let Some(current) = step {
            reversed.push(current.segment.map(str::to_owned));
            step = current.parent;
        }
        reversed.reverse();
        reversed
    }

    /// Records `problem` here (or at `last`, a property of the object here); the error that ends the pass when it
    /// is one more than a refusal lists.
    fn note_at<E: de::Error>(self, last: Option<Segment<&str>>, problem: Problem) -> Result<(), E> {
        let mut trail = self.trail.borrow_mut();
        if trail.problems.len() >= MAX_PROBLEMS {
            trail.more = true;
            return Err(E::custom("the body has more problems than a refusal lists"));
        }
        trail.problems.push((self.owned_path(last), problem));
        Ok(())
    }

    fn note<E: de::Error>(self, problem: Problem) -> Result<(), E> {
        self.note_at(None, problem)
    }

    fn wrong_type<E: de::Error>(self, found: JsonKind) -> Result<(), E> {
        let expected = self.schemas.expected(self.shape);
        self.note(Problem::WrongType { expected, found })
    }

    fn scalar<E: de::Error>(self, kind: JsonKind) -> Result<(), E> {
        match self.schemas.taking(self.shape, kind) {
            Some(_) => Ok(()),
            None => self.wrong_type(kind),
        }
    }

    fn object<'de, A: MapAccess<'de>>(self, properties: &[Property], mut map: A) -> Result<(), A::Error> {
        let mut seen: u64 = 0;
        while let Some(index) = map.next_key_seed(KeyOf(properties))? {
            let Some(property) = index.and_then(|index| properties.get(index)) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if let Some(bit) = property.required_bit {
                seen |= 1 << bit;
            }
            let step = Step {
                segment: Segment::Key(property.name.as_str()),
                parent: self.path,
            };
            map.next_value_seed(self.inner(&step, property.shape))?;
        }
        let missing = properties
            .iter()
            .filter(|property| property.required_bit.is_some_and(|bit| seen & (1 << bit) == 0));
        for property in missing {
            self.note_at(Some(Segment::Key(property.name.as_str())), Problem::Missing)?;
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self.schemas.shape(self.shape) {
            Shape::Any => deserializer.deserialize_ignored_any(IgnoredAny).map(|_| ()),
            _ => deserializer.deserialize_any(self),
        }
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.scalar(JsonKind::Boolean)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.scalar(JsonKind::Integer)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.scalar(JsonKind::Integer)
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<(), E> {
        let taken = |kind| self.schemas.taking(self.shape, kind).is_some();
        if !taken(JsonKind::Fraction) && integral(value) && taken(JsonKind::Integer) {
            self.trail.borrow_mut().integral_fraction = true;
            return Ok(());
        }
        self.scalar(JsonKind::Fraction)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scalar(JsonKind::Null)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        // Only texts the schema names are refused for a NUL: they are what gets stored, and PostgreSQL cannot store
        // it. Unknown properties are ignored whatever they hold, as the document lets them be sent.
        if text.contains('\0') && self.schemas.taking(self.shape, JsonKind::Text).is_some() {
            return self.note(Problem::Nul);
        }
        match self.schemas.taking(self.shape, JsonKind::Text) {
            Some(Shape::Text { date_time: true }) if DateTime::parse_from_rfc3339(text).is_err() => {
                self.note(Problem::NotDateTime)
            }
            Some(_) => Ok(()),
            None => self.wrong_type(JsonKind::Text),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let taking = self.schemas.taking(self.shape, JsonKind::Object);
        if let Some(Shape::Object(properties)) = taking {
            return self.object(properties, map);
        }
        if taking.is_none() {
            self.wrong_type(JsonKind::Object)?;
        }
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let items = match self.schemas.taking(self.shape, JsonKind::Array) {
            Some(Shape::Array(items)) => *items,
            taking => {
                if taking.is_none() {
                    self.wrong_type(JsonKind::Array)?;
                }
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                return Ok(());
            }
        };
        for index in 0.. {
            let step = Step {
                segment: Segment::Index(index),
                parent: self.path,
            };
            if seq.next_element_seed(self.inner(&step, items))?.is_none() {
                break;
            }
        }
        Ok(())
    }
}

/// Whether `value` has no fraction and lies strictly within an `i64`'s range, the widest integer a body holds.
/// Strictly: an integer written beyond the range (`-9223372036854775809`) reads as exactly −2^63, which must stay
/// refused.
pub fn integral(value: f64) -> bool {
    const BOUND: f64 = 9_223_372_036_854_775_808.0; // 2^63
    value.fract() == 0.0 && value > -BOUND && value < BOUND
}

/// Reads an object's key as the index of the property it names, `None` for a key the schema does not know;
/// borrowed, so known keys cost no allocation.
struct KeyOf<'s>(&'s [Property]);

impl<'de> DeserializeSeed<'de> for KeyOf<'_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyOf<'_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|property| property.name == key))
    }
}
