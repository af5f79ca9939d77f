//! The check of a body's JSON against its compiled schema: one pass over the bytes that allocates nothing while the
//! body fits (like `serde::de::IgnoredAny`, which it uses for what the schema leaves open), and that on the first
//! mismatch records what is wrong and, as the error unwinds, where.

use std::cell::RefCell;
use std::fmt;

use chrono::DateTime;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserializer;

use super::messages::{JsonKind, Problem};
use super::schema::{Compiled, Property, Shape, ShapeId};
use super::Segment;

/// The first mismatch found, and its path from the innermost place out (it is filled as the error unwinds).
#[derive(Debug, Default)]
pub struct Trail {
    /// What is wrong; `None` when the parser itself failed (a syntax error or a truncated body).
    pub problem: Option<Problem>,
    /// The path, innermost segment first.
    pub reversed_path: Vec<Segment<String>>,
    /// Whether an integer place holds a number written with a fraction of zero (`764.0`): JSON Schema counts it as
    /// an integer, so it is taken, but the typed parse needs it rewritten first.
    pub integral_fraction: bool,
}

/// Checks the value `deserializer` reads against shape `shape` of `schemas`; on a mismatch, `trail` says what and
/// where.
#[derive(Clone, Copy)]
pub struct Walk<'s> {
    pub schemas: &'s Compiled,
    pub shape: ShapeId,
    pub trail: &'s RefCell<Trail>,
}

impl<'s> Walk<'s> {
    fn at(self, shape: ShapeId) -> Self {
        Self { shape, ..self }
    }

    /// Records `problem` here; answers the error that unwinds the parse.
    fn fail<E: de::Error>(self, problem: Problem) -> E {
        self.trail.borrow_mut().problem = Some(problem);
        E::custom("the body does not fit its schema")
    }

    fn wrong_type<E: de::Error>(self, found: JsonKind) -> E {
        let expected = self.schemas.expected(self.shape);
        self.fail(Problem::WrongType { expected, found })
    }

    /// Adds `segment` to the path of an error unwinding through here.
    fn within<E>(self, segment: impl FnOnce() -> Segment<String>, error: E) -> E {
        self.trail.borrow_mut().reversed_path.push(segment());
        error
    }

    fn scalar<E: de::Error>(self, kind: JsonKind) -> Result<(), E> {
        match self.schemas.taking(self.shape, kind) {
            Some(_) => Ok(()),
            None => Err(self.wrong_type(kind)),
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
            map.next_value_seed(self.at(property.shape))
                .map_err(|error| self.within(|| Segment::Key(property.name.clone()), error))?;
        }
        let missing = properties
            .iter()
            .find(|property| property.required_bit.is_some_and(|bit| seen & (1 << bit) == 0));
        match missing {
            Some(property) => {
                let error = self.fail(Problem::Missing);
                Err(self.within(|| Segment::Key(property.name.clone()), error))
            }
            None => Ok(()),
        }
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
        let fraction = self.scalar::<E>(JsonKind::Fraction);
        if fraction.is_err() && integral(value) && self.schemas.taking(self.shape, JsonKind::Integer).is_some() {
            self.trail.borrow_mut().integral_fraction = true;
            return Ok(());
        }
        fraction
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scalar(JsonKind::Null)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        // Only texts the schema names are refused for a NUL: they are what gets stored, and PostgreSQL cannot store
        // it. Unknown properties are ignored whatever they hold, as the document lets them be sent.
        if text.contains('\0') && self.schemas.taking(self.shape, JsonKind::Text).is_some() {
            return Err(self.fail(Problem::Nul));
        }
        match self.schemas.taking(self.shape, JsonKind::Text) {
            Some(Shape::Text { date_time: true }) if DateTime::parse_from_rfc3339(text).is_err() => {
                Err(self.fail(Problem::NotDateTime))
            }
            Some(_) => Ok(()),
            None => Err(self.wrong_type(JsonKind::Text)),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        match self.schemas.taking(self.shape, JsonKind::Object) {
            Some(Shape::Object(properties)) => self.object(properties, map),
            Some(_) => {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(())
            }
            None => Err(self.wrong_type(JsonKind::Object)),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let items = match self.schemas.taking(self.shape, JsonKind::Array) {
            Some(Shape::Array(items)) => *items,
            Some(_) => {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                return Ok(());
            }
            None => return Err(self.wrong_type(JsonKind::Array)),
        };
        let mut index = 0;
        while seq
            .next_element_seed(self.at(items))
            .map_err(|error| self.within(|| Segment::Index(index), error))?
            .is_some()
        {
            index += 1;
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
