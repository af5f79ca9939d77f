//! The values bound to queries built at run time ([`Arg`]), one variant per type both backends bind alike, and
//! the macro that binds them in order ([`bind_args`]).

/// Binds a slice of [`Arg`]s to a query, in order.
macro_rules! bind_args {
    ($query:expr, $args:expr) => {{
        let mut query = $query;
        for arg in $args {
            query = match arg {
                $crate::arg::Arg::Int(v) => query.bind(*v),
                $crate::arg::Arg::OptionalInt(v) => query.bind(*v),
                $crate::arg::Arg::Float(v) => query.bind(*v),
                $crate::arg::Arg::OptionalFloat(v) => query.bind(*v),
                $crate::arg::Arg::Bool(v) => query.bind(*v),
                $crate::arg::Arg::Text(v) => query.bind(v.clone()),
                $crate::arg::Arg::OptionalText(v) => query.bind(v.clone()),
            };
        }
        query
    }};
}

pub(crate) use bind_args;

/// A value bound to a dynamically built query (and the values of [`crate::bulk`]'s rows).
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// An integer.
    Int(i64),
    /// An integer or `NULL`.
    OptionalInt(Option<i64>),
    /// A number.
    Float(f64),
    /// A number or `NULL`.
    OptionalFloat(Option<f64>),
    /// A boolean.
    Bool(bool),
    /// Text.
    Text(String),
    /// Text or `NULL`.
    OptionalText(Option<String>),
}

impl Arg {
    /// The type PostgreSQL is told the argument has when a statement is prepared: the one sqlx binds it as.
    pub(crate) fn pg_type(&self) -> tokio_postgres::types::Type {
        use tokio_postgres::types::Type;
        match self {
            Arg::Int(_) | Arg::OptionalInt(_) => Type::INT8,
            Arg::Float(_) | Arg::OptionalFloat(_) => Type::FLOAT8,
            Arg::Bool(_) => Type::BOOL,
            Arg::Text(_) | Arg::OptionalText(_) => Type::TEXT,
        }
    }

    /// The argument as `tokio-postgres` sends it.
    pub(crate) fn pg_value(&self) -> &(dyn tokio_postgres::types::ToSql + Sync) {
        match self {
            Arg::Int(value) => value,
            Arg::OptionalInt(value) => value,
            Arg::Float(value) => value,
            Arg::OptionalFloat(value) => value,
            Arg::Bool(value) => value,
            Arg::Text(value) => value,
            Arg::OptionalText(value) => value,
        }
    }
}

impl From<i64> for Arg {
    fn from(value: i64) -> Self {
        Arg::Int(value)
    }
}

impl From<Option<i64>> for Arg {
    fn from(value: Option<i64>) -> Self {
        Arg::OptionalInt(value)
    }
}

impl From<f64> for Arg {
    fn from(value: f64) -> Self {
        Arg::Float(value)
    }
}

impl From<Option<f64>> for Arg {
    fn from(value: Option<f64>) -> Self {
        Arg::OptionalFloat(value)
    }
}

impl From<bool> for Arg {
    fn from(value: bool) -> Self {
        Arg::Bool(value)
    }
}

impl From<String> for Arg {
    fn from(value: String) -> Self {
        Arg::Text(value)
    }
}

impl From<&str> for Arg {
    fn from(value: &str) -> Self {
        Arg::Text(value.to_owned())
    }
}

impl From<Option<String>> for Arg {
    fn from(value: Option<String>) -> Self {
        Arg::OptionalText(value)
    }
}

impl From<Option<&str>> for Arg {
    fn from(value: Option<&str>) -> Self {
        Arg::OptionalText(value.map(str::to_owned))
    }
}

impl Arg {
    /// The integer this holds, if it holds one.
    pub fn int(&self) -> Option<i64> {
        match self {
            Arg::Int(value) | Arg::OptionalInt(Some(value)) => Some(*value),
            _ => None,
        }
    }

    /// The number this holds, if it holds one.
    pub fn float(&self) -> Option<f64> {
        match self {
            Arg::Float(value) | Arg::OptionalFloat(Some(value)) => Some(*value),
            _ => None,
        }
    }

    /// The text this holds, if it holds some.
    pub fn text(&self) -> Option<&str> {
        match self {
            Arg::Text(value) | Arg::OptionalText(Some(value)) => Some(value),
            _ => None,
        }
    }

    /// The boolean this holds, if it holds one.
    pub fn bool(&self) -> Option<bool> {
        match self {
            Arg::Bool(value) => Some(*value),
            _ => None,
        }
    }
}
