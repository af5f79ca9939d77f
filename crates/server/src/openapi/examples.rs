//! Examples for the properties of the document's schemas that have none, made from what each schema says of the
//! property (a quoted value, its set of values, its format, its bounds) or from what a field of its name holds.

use std::collections::BTreeMap;

use serde_json::json;
use utoipa::openapi::schema::{SchemaType, Type};
use utoipa::openapi::{RefOr, Schema};

/// Gives every property of `schemas` that has no example one made from what the schema says of it: the first value
/// its description quotes (`pests`), its set of values, its format, or what a field of its name usually holds, within
/// its bounds. A property that refers to another component shows that component's example.
pub(super) fn exemplify(schemas: &mut BTreeMap<String, RefOr<Schema>>) {
    for schema in schemas.values_mut() {
        if let RefOr::T(Schema::Object(object)) = schema {
            for (name, property) in object.properties.iter_mut() {
                match property {
                    RefOr::T(Schema::Object(property))
                        if property.example.is_none() && property.examples.is_empty() =>
                    {
                        property.examples = example_of(name, property).into_iter().collect();
                    }
                    RefOr::T(Schema::Array(array)) if array.example.is_none() && array.examples.is_empty() => {
                        if let utoipa::openapi::schema::ArrayItems::RefOrSchema(items) = &array.items {
                            if let RefOr::T(Schema::Object(item)) = items.as_ref() {
                                array.examples = example_of(name, item).map(|one| json!([one])).into_iter().collect();
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

/// An example for property `name` of schema `schema`, if its type is one an example can be made for.
fn example_of(name: &str, schema: &utoipa::openapi::schema::Object) -> Option<serde_json::Value> {
    let kinds: Vec<Type> = match &schema.schema_type {
        SchemaType::Type(kind) => vec![kind.clone()],
        SchemaType::Array(kinds) => kinds.clone(),
        SchemaType::AnyValue => Vec::new(),
    };
    if let Some(first) = schema.enum_values.as_ref().and_then(|values| values.first()) {
        return Some(first.clone());
    }
    let number = |value: f64| {
        let bound = |limit: &Option<utoipa::Number>| match limit {
            Some(utoipa::Number::Int(limit)) => Some(*limit as f64),
            Some(utoipa::Number::UInt(limit)) => Some(*limit as f64),
            Some(utoipa::Number::Float(limit)) => Some(*limit),
            None => None,
        };
        let low = bound(&schema.minimum).unwrap_or(f64::MIN);
        let high = bound(&schema.maximum).unwrap_or(f64::MAX);
        value.clamp(low, high)
    };
    let quoted = schema
        .description
        .as_deref()
        .and_then(|description| description.split('`').nth(1))
        .map(|quoted| quoted.trim_matches('"'))
        // A quoted form such as `YYYY-MM-DD` says how a value is written, not what one is.
        .filter(|quoted| quoted.chars().any(|c| c.is_ascii_lowercase() || c.is_ascii_digit()) && *quoted != "null");
    if kinds.contains(&Type::String) {
        if let Some(utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::DateTime)) = schema.format
        {
            return Some(json!("2024-03-01T09:30:00-03:00"));
        }
        if let Some(quoted) = quoted {
            return Some(json!(quoted));
        }
        return Some(json!(text_example(name)));
    }
    if kinds.contains(&Type::Integer) {
        let value = match name {
            "id" | "local_id" => 12.0,
            _ if name.ends_with("_id") => 7.0,
            "status_code" => 200.0,
            "latency_ms" => 184.0,
            "year" => 2021.0,
            _ if name.contains("number") => 1.0,
            _ => 3.0,
        };
        return Some(json!(number(value) as i64));
    }
    if kinds.contains(&Type::Number) {
        let value = match name {
            _ if name.contains("area") => 48.5,
            _ if name.contains("percent") || name.contains("humidity") => 13.5,
            _ if name.contains("yield") => 3.2,
            _ if name.starts_with("lat") => -36.61,
            _ if name.starts_with("lon") => -64.29,
            _ => 21.5,
        };
        return Some(json!(number(value)));
    }
    if kinds.contains(&Type::Boolean) {
        return Some(json!(name == "active" || name == "pending"));
    }
    None
}

/// What a text field named `name` usually holds, for its example.
fn text_example(name: &str) -> &'static str {
    const BY_NAME: [(&str, &str); 34] = [
        ("email", "contacto@lapampa.com.ar"),
        ("phone", "+54 9 2954 55-1234"),
        ("address", "Ruta Nacional 5 km 602, Santa Rosa, La Pampa"),
        ("cuit", "30-71234567-8"),
        ("external_code", "ERP-0042"),
        ("external_id", "ERP-OT-0042"),
        ("code", "AR-LP"),
        ("lastname", "Almada"),
        ("fullname", "Jorge Almada"),
        ("scout", "Jorge Almada"),
        ("created_by_name", "Jorge"),
        ("farmer_name", "Agropecuaria La Pampa S.A."),
        ("legal", "Agropecuaria La Pampa S.A."),
        ("file_name", "IMG_0042.jpg"),
        ("scientific", "Nezara viridula"),
        ("plate", "AB 123 CD"),
        ("lat", "-36.6123"),
        ("lon", "-64.2901"),
        ("accuracy", "4.5"),
        ("date", "2024-10-15"),
        ("url", "https://erp.example.com/tranquera/webhooks"),
        ("token", "1.QNSZFO7AfpggBZHlj2mybgzx1eoGtM9pFdel2UsHvO4"),
        ("password", "LaPampa-2026"),
        ("observations", "Sin novedades."),
        ("description", "Monitoreo semanal"),
        ("message", "No existe el recurso plots con id 99."),
        ("error", "connection refused"),
        ("sync", "a3f5c2e1"),
        ("ingredient", "Glifosato 66,2 %"),
        ("serial", "WS-2024-0117"),
        ("abbreviation", "ha"),
        ("brand", "John Deere"),
        ("model", "Metalfor 3200"),
        ("name", "La Esperanza"),
    ];
    BY_NAME
        .iter()
        .find(|(part, _)| name.to_ascii_lowercase().contains(part))
        .map_or("Texto libre", |(_, example)| example)
}
