//! The OpenAPI document's component schemas, compiled once at start-up into a graph of [`Shape`]s that the body
//! check follows by index: `$ref`s are resolved here, so no request looks a schema up by name below its root.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::messages::{Expected, JsonKind};

/// Where a shape sits in [`Compiled::shapes`].
pub type ShapeId = usize;

/// What a JSON value at one place of a body may be.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Anything: the schema does not say, so the typed parse decides.
    Any,
    /// `null`.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A number without a fraction.
    Integer,
    /// Any number.
    Number,
    /// A string, perhaps a date-time. Its `enum`, if any, is a rule the domain checks with the body's other rules,
    /// so that every broken rule is answered at once (422), not only the first.
    Text {
        /// `format: date-time`: RFC 3339 with an offset.
        date_time: bool,
    },
    /// An object with these known properties; others are ignored.
    Object(Vec<Property>),
    /// An array of these items.
    Array(ShapeId),
    /// Any one of these (`oneOf`, `anyOf`, a list of types, a lone `$ref`).
    Either(Vec<ShapeId>),
}

/// A property of an object shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    /// Its key.
    pub name: String,
    /// Its value's shape.
    pub shape: ShapeId,
    /// Its bit in the mask of required properties seen, when it is required. Only the first 64 required
    /// properties of an object get one; a missing later one is left to the typed parse, which refuses it too.
    pub required_bit: Option<u32>,
}

/// The compiled schemas, with the root shape of each component by name.
#[derive(Debug)]
pub struct Compiled {
    /// Every shape; [`ShapeId`]s index it.
    pub shapes: Vec<Shape>,
    /// The shape of each component schema.
    pub named: HashMap<String, ShapeId>,
}

const COMPONENT_PREFIX: &str = "#/components/schemas/";

impl Compiled {
    /// Compiles every schema of `components` (the document's `components.schemas`, as JSON).
    pub fn new(components: &Map<String, Value>) -> Self {
        let mut compiler = Compiler {
            components,
            compiled: Compiled {
                shapes: vec![Shape::Any],
                named: HashMap::new(),
            },
        };
        for name in components.keys() {
            compiler.named(name);
        }
        compiler.compiled
    }

    /// The shape `id` names.
    pub fn shape(&self, id: ShapeId) -> &Shape {
        self.shapes.get(id).unwrap_or(&Shape::Any)
    }

    /// The shape that takes a value of `kind` at `id`: the shape itself, or the one alternative of an `Either` that
    /// takes it. `Any` when several alternatives take it (the typed parse tells them apart), `None` when none does.
    pub fn taking(&self, id: ShapeId, kind: JsonKind) -> Option<&Shape> {
        match self.shape(id) {
            Shape::Either(alternatives) => {
                let mut taking = alternatives
                    .iter()
                    .filter_map(|&alternative| self.taking(alternative, kind));
                let first = taking.next()?;
                Some(if taking.next().is_some() { &Shape::Any } else { first })
            }
            shape => takes(shape, kind).then_some(shape),
        }
    }

    /// The JSON types a value at `id` may have, for a message.
    pub fn expected(&self, id: ShapeId) -> Expected {
        self.expected_within(id, 0)
    }

    fn expected_within(&self, id: ShapeId, depth: usize) -> Expected {
        // Alternatives that only refer to each other say nothing; the depth bound ends such a loop.
        if depth > 16 {
            return Expected::NONE;
        }
        match self.shape(id) {
            Shape::Any => Expected::NONE,
            Shape::Null => Expected::NULL,
            Shape::Boolean => Expected::BOOLEAN,
            Shape::Integer => Expected::INTEGER,
            Shape::Number => Expected::NUMBER,
            Shape::Text { date_time: true, .. } => Expected::DATE_TIME,
            Shape::Text { .. } => Expected::TEXT,
            Shape::Object(_) => Expected::OBJECT,
            Shape::Array(_) => Expected::ARRAY,
            Shape::Either(alternatives) => alternatives.iter().fold(Expected::NONE, |all, &alternative| {
                all | self.expected_within(alternative, depth + 1)
            }),
        }
    }

    /// The shape a value at the end of `path` (keys and indexes from `root`) has, `Any` where the path leaves the
    /// schema.
    pub fn at_path<'p>(&self, root: ShapeId, path: impl IntoIterator<Item = super::Segment<&'p str>>) -> ShapeId {
        let mut id = root;
        for segment in path {
            let next = match segment {
                super::Segment::Key(key) => match self.taking(id, JsonKind::Object) {
                    Some(Shape::Object(properties)) => properties
                        .iter()
                        .find(|property| property.name == key)
                        .map(|property| property.shape),
                    _ => None,
                },
                super::Segment::Index(_) => match self.taking(id, JsonKind::Array) {
                    Some(Shape::Array(items)) => Some(*items),
                    _ => None,
                },
            };
            match next {
                Some(next) => id = next,
                None => return self.any(),
            }
        }
        id
    }

    /// The id of an `Any` shape: the compiler makes it first.
    fn any(&self) -> ShapeId {
        0
    }
}

/// Whether `shape` (not an `Either`) takes a JSON value of `kind`.
fn takes(shape: &Shape, kind: JsonKind) -> bool {
    matches!(
        (shape, kind),
        (Shape::Any, _)
            | (Shape::Null, JsonKind::Null)
            | (Shape::Boolean, JsonKind::Boolean)
            | (Shape::Integer, JsonKind::Integer)
            | (Shape::Number, JsonKind::Integer | JsonKind::Fraction)
            | (Shape::Text { .. }, JsonKind::Text)
            | (Shape::Object(_), JsonKind::Object)
            | (Shape::Array(_), JsonKind::Array)
    )
}

struct Compiler<'c> {
    components: &'c Map<String, Value>,
    compiled: Compiled,
}

impl Compiler<'_> {
    fn push(&mut self, shape: Shape) -> ShapeId {
        self.compiled.shapes.push(shape);
        self.compiled.shapes.len() - 1
    }

    /// The shape of component `name`, compiled once; a schema that refers to itself refers to its own id.
    fn named(&mut self, name: &str) -> ShapeId {
        if let Some(&id) = self.compiled.named.get(name) {
            return id;
        }
        let id = self.push(Shape::Any);
        self.compiled.named.insert(name.to_owned(), id);
        if let Some(schema) = self.components.get(name) {
            let shape = self.shape_of(schema);
            self.compiled.shapes[id] = shape;
        }
        id
    }

    fn node(&mut self, schema: &Value) -> ShapeId {
        match reference(schema) {
            Some(name) => self.named(name),
            None => {
                let shape = self.shape_of(schema);
                self.push(shape)
            }
        }
    }

    fn nodes(&mut self, schemas: &[Value]) -> Vec<ShapeId> {
        schemas.iter().map(|schema| self.node(schema)).collect()
    }

    fn shape_of(&mut self, schema: &Value) -> Shape {
        if let Some(name) = reference(schema) {
            return Shape::Either(vec![self.named(name)]);
        }
        for composition in ["oneOf", "anyOf"] {
            if let Some(Value::Array(alternatives)) = schema.get(composition) {
                return Shape::Either(self.nodes(alternatives));
            }
        }
        match schema.get("allOf") {
            // A lone `allOf` member is how a described `$ref` is written; several would need merging, which no
            // body of ours needs, so the typed parse judges them.
            Some(Value::Array(parts)) if parts.len() == 1 => return Shape::Either(self.nodes(parts)),
            Some(_) => return Shape::Any,
            None => {}
        }
        match schema.get("type") {
            Some(Value::String(kind)) => self.typed(kind, schema),
            Some(Value::Array(kinds)) => {
                let alternatives = kinds
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|kind| {
                        let shape = self.typed(kind, schema);
                        self.push(shape)
                    })
                    .collect();
                Shape::Either(alternatives)
            }
            _ => Shape::Any,
        }
    }

    fn typed(&mut self, kind: &str, schema: &Value) -> Shape {
        match kind {
            "null" => Shape::Null,
            "boolean" => Shape::Boolean,
            "integer" => Shape::Integer,
            "number" => Shape::Number,
            "string" => Shape::Text {
                date_time: schema.get("format").and_then(Value::as_str) == Some("date-time"),
            },
            "array" => Shape::Array(match schema.get("items") {
                Some(items @ Value::Object(_)) => self.node(items),
                _ => self.push(Shape::Any),
            }),
            "object" => self.object(schema),
            _ => Shape::Any,
        }
    }

    fn object(&mut self, schema: &Value) -> Shape {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(Value::Object(properties)) = schema.get("properties") else {
            return Shape::Object(Vec::new());
        };
        let mut bits = 0..u64::BITS;
        let properties = properties
            .iter()
            .map(|(name, property)| Property {
                name: name.clone(),
                shape: self.node(property),
                required_bit: if required.contains(&name.as_str()) {
                    bits.next()
                } else {
                    None
                },
            })
            .collect();
        Shape::Object(properties)
    }
}

/// The component a `{"$ref": "#/components/schemas/Name"}` names.
fn reference(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix(COMPONENT_PREFIX)
}
