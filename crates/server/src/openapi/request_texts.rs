//! The [`NO_NUL`] pattern on every text of a request body that states no form of its own, found by following the
//! components each request body refers to.

use std::collections::BTreeMap;

use utoipa::openapi::schema::{SchemaType, Type};
use utoipa::openapi::{Paths, RefOr, Schema};

use super::NO_NUL;

/// Gives every text of a request body that states no form of its own (a pattern, a set of values, a format) the
/// [`NO_NUL`] pattern: the server refuses NUL in every text it reads.
pub(super) fn nul_free_request_texts(paths: &Paths, schemas: &mut BTreeMap<String, RefOr<Schema>>) {
    let mut pending: Vec<String> = paths
        .paths
        .values()
        .flat_map(|item| [&item.put, &item.post, &item.patch])
        .flatten()
        .filter_map(|operation| operation.request_body.as_ref())
        .flat_map(|body| body.content.values())
        .filter_map(|content| content.schema.as_ref())
        .flat_map(references)
        .collect();
    let mut done = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        if !done.insert(name.clone()) {
            continue;
        }
        if let Some(schema) = schemas.get_mut(&name) {
            pending.extend(references(schema));
            forbid_nul(schema);
        }
    }
}

/// The names of the components `schema` refers to, directly or within.
fn references(schema: &RefOr<Schema>) -> Vec<String> {
    match schema {
        RefOr::Ref(reference) => reference
            .ref_location
            .strip_prefix("#/components/schemas/")
            .map(str::to_owned)
            .into_iter()
            .collect(),
        RefOr::T(Schema::Object(object)) => object.properties.values().flat_map(references).collect(),
        RefOr::T(Schema::Array(array)) => match &array.items {
            utoipa::openapi::schema::ArrayItems::RefOrSchema(items) => references(items),
            _ => Vec::new(),
        },
        RefOr::T(Schema::OneOf(one_of)) => one_of.items.iter().flat_map(references).collect(),
        RefOr::T(Schema::AllOf(all_of)) => all_of.items.iter().flat_map(references).collect(),
        RefOr::T(Schema::AnyOf(any_of)) => any_of.items.iter().flat_map(references).collect(),
        RefOr::T(_) => Vec::new(),
    }
}

fn forbid_nul(schema: &mut RefOr<Schema>) {
    match schema {
        RefOr::T(Schema::Object(object)) => {
            let text = match &object.schema_type {
                SchemaType::Type(kind) => *kind == Type::String,
                SchemaType::Array(kinds) => kinds.contains(&Type::String),
                SchemaType::AnyValue => false,
            };
            if text && object.pattern.is_none() && object.enum_values.is_none() && object.format.is_none() {
                object.pattern = Some(NO_NUL.to_owned());
            }
            object.properties.values_mut().for_each(forbid_nul);
        }
        RefOr::T(Schema::Array(array)) => {
            if let utoipa::openapi::schema::ArrayItems::RefOrSchema(items) = &mut array.items {
                forbid_nul(items);
            }
        }
        RefOr::T(Schema::OneOf(one_of)) => one_of.items.iter_mut().for_each(forbid_nul),
        RefOr::T(Schema::AllOf(all_of)) => all_of.items.iter_mut().for_each(forbid_nul),
        RefOr::T(Schema::AnyOf(any_of)) => any_of.items.iter_mut().for_each(forbid_nul),
        RefOr::T(_) | RefOr::Ref(_) => {}
    }
}
