//! JSON request bodies, read strictly against the OpenAPI document: a body is first checked against its operation's
//! schema (so an array is never read as an object, and a mismatch is named by its JSON path and JSON type), then
//! parsed into its wire type. Whatever the parse still refuses is reported with its path in our own words, so no
//! parser text or Rust type name reaches an integrator.
//!
//! - [`schema`]: the document's component schemas, compiled once at start-up.
//! - [`walk`]: the check, one pass over the bytes that allocates nothing for a body that fits, and that names every
//!   problem of one that does not (up to [`MAX_PROBLEMS`]).
//! - [`messages`]: why a body was refused, in the caller's language.

mod messages;
mod schema;
mod walk;

use std::cell::RefCell;

use serde::de::{DeserializeOwned, DeserializeSeed};
use serde_json::error::Category;
use utoipa::openapi::OpenApi;
use utoipa::ToSchema;

pub use messages::{BodyError, Expected, Hint, JsonKind, Problem, MAX_PROBLEMS};

/// One step of a JSON path: a property's key, or an array index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment<K> {
    /// `.key`.
    Key(K),
    /// `[index]`.
    Index(usize),
}

impl<K> Segment<K> {
    /// The same step, with its key converted.
    pub fn map<L>(self, convert: impl FnOnce(K) -> L) -> Segment<L> {
        match self {
            Segment::Key(key) => Segment::Key(convert(key)),
            Segment::Index(index) => Segment::Index(index),
        }
    }
}

/// The body schemas of every operation, by the name of their component.
#[derive(Debug)]
pub struct BodySchemas(schema::Compiled);

impl BodySchemas {
    /// Compiles the component schemas of `document`.
    pub fn new(document: &OpenApi) -> serde_json::Result<Self> {
        let components = match &document.components {
            Some(components) => serde_json::to_value(&components.schemas)?,
            None => serde_json::Value::Null,
        };
        let empty = serde_json::Map::new();
        Ok(Self(schema::Compiled::new(components.as_object().unwrap_or(&empty))))
    }

    /// Whether the document gives `T` a schema, so that its bodies are checked against it.
    pub fn knows<T: ToSchema>(&self) -> bool {
        self.0.named.contains_key(T::name().as_ref())
    }

    /// Reads `bytes` as a `T`, checked against the schema `T` is documented with.
    pub fn read<T: DeserializeOwned + ToSchema>(&self, bytes: &[u8]) -> Result<T, BodyError> {
        let root = self.0.named.get(T::name().as_ref()).copied();
        let rewritten = match root {
            Some(root) if self.check(root, bytes)? => Some(integers_without_fractions(bytes)?),
            _ => None,
        };
        let bytes = rewritten.as_deref().unwrap_or(bytes);
        serde_json::from_slice(bytes).map_err(|_| self.refusal::<T>(root, bytes))
    }

    /// Checks `bytes` against shape `root`; answers whether an integer in it is written with a zero fraction. A body
    /// that does not fit is refused with every problem found; one that is not JSON, with where it stops being JSON,
    /// whatever problems came before (nothing after can be read).
    fn check(&self, root: schema::ShapeId, bytes: &[u8]) -> Result<bool, BodyError> {
        let trail = RefCell::new(walk::Trail::default());
        let walk = walk::Walk {
            schemas: &self.0,
            shape: root,
            trail: &trail,
            path: None,
        };
        let mut deserializer = serde_json::Deserializer::from_slice(bytes);
        let checked = walk.deserialize(&mut deserializer).and_then(|()| deserializer.end());
        let trail = trail.into_inner();
        match checked {
            // The error that ended the pass at the first problem beyond those listed.
            Err(_) if trail.more => Err(BodyError::new(trail.problems, true)),
            Err(error) => Err(parse_failure(&error)),
            Ok(()) if trail.problems.is_empty() => Ok(trail.integral_fraction),
            Ok(()) => Err(BodyError::new(trail.problems, false)),
        }
    }

    /// Why the typed parse refused a body that fits its schema (e.g. an integer too large to store): the place,
    /// found by parsing again while tracking the path, and what the schema takes there.
    fn refusal<T: DeserializeOwned>(&self, root: Option<schema::ShapeId>, bytes: &[u8]) -> BodyError {
        let mut deserializer = serde_json::Deserializer::from_slice(bytes);
        let path: Vec<Segment<String>> = match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
            Err(error)
                if matches!(
                    error.inner().classify(),
                    Category::Syntax | Category::Eof | Category::Io
                ) =>
            {
                return parse_failure(error.inner());
            }
            Err(error) => error
                .path()
                .iter()
                .filter_map(|segment| match segment {
                    serde_path_to_error::Segment::Seq { index } => Some(Segment::Index(*index)),
                    serde_path_to_error::Segment::Map { key } => Some(Segment::Key(key.clone())),
                    _ => None,
                })
                .collect(),
            // The same bytes parse the same way twice; were they read this time, the body as a whole is at fault.
            Ok(_) => Vec::new(),
        };
        let expected = root.map_or(Expected::NONE, |root| {
            let steps = path.iter().map(|segment| match segment {
                Segment::Key(key) => Segment::Key(key.as_str()),
                Segment::Index(index) => Segment::Index(*index),
            });
            self.0.expected(self.0.at_path(root, steps))
        });
        BodyError::at(path, Problem::Unacceptable { expected })
    }
}

/// `bytes` with every number that has a zero fraction and fits an `i64` (`764.0`) written as an integer, so the
/// typed parse reads it where an integer is due; a number elsewhere reads the same either way.
fn integers_without_fractions(bytes: &[u8]) -> Result<Vec<u8>, BodyError> {
    fn rewrite(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Number(number) => {
                if let Some(float) = number
                    .as_f64()
                    .filter(|float| number.is_f64() && walk::integral(*float))
                {
                    // `integral` bounds it within `i64`, so the conversion is exact.
                    *number = serde_json::Number::from(float as i64);
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(rewrite),
            serde_json::Value::Object(properties) => properties.values_mut().for_each(rewrite),
            _ => {}
        }
    }
    let mut value: serde_json::Value = serde_json::from_slice(bytes).map_err(|error| parse_failure(&error))?;
    rewrite(&mut value);
    serde_json::to_vec(&value).map_err(|error| parse_failure(&error))
}

/// A body that is not JSON, or stops before its end.
fn parse_failure(error: &serde_json::Error) -> BodyError {
    let (line, column) = (error.line(), error.column());
    let problem = match error.classify() {
        Category::Eof => Problem::Truncated { line, column },
        _ => Problem::Syntax { line, column },
    };
    BodyError::at(Vec::new(), problem)
}

#[cfg(test)]
mod tests;
