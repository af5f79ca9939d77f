//! What the console never stores: the values of fields, query parameters and headers whose names say they hold a
//! secret — passwords, access and refresh tokens, API keys, signing secrets, credentials, `Authorization`. Names
//! are compared without case, `_` or `-`, by what they contain, so `access_token`, `refreshToken`, `new_password`,
//! `previous_secret` and `X-SVC-APIKEY` are all caught; JSON is searched at every depth.

use axum::http::HeaderMap;
use serde_json::{Map, Value};

/// What stands in for a redacted value.
pub const REDACTED: &str = "[redacted]";

/// What a name contains when its value is secret.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "token",
    "apikey",
    "authorization",
    "credential",
    "cookie",
    "signature",
];

/// Whether a field, parameter or header named `name` holds a secret.
pub fn is_secret(name: &str) -> bool {
    let folded: String = name
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect();
    SECRET_WORDS.iter().any(|word| folded.contains(word))
}

/// Replaces, at every depth of `value`, the value of every secret field, whatever its type.
pub fn json(value: &mut Value) {
    match value {
        Value::Object(fields) => {
            for (name, field) in fields.iter_mut() {
                if is_secret(name) {
                    *field = Value::from(REDACTED);
                } else {
                    json(field);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(json),
        _ => {}
    }
}

/// A query string with the values of its secret parameters replaced; a query without any is kept as it came.
pub fn query(query: &str) -> String {
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    if !pairs.iter().any(|(name, _)| is_secret(name)) {
        return query.to_owned();
    }
    let mut serializer = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in &pairs {
        let shown = if is_secret(name) { REDACTED } else { value.as_str() };
        serializer.append_pair(name, shown);
    }
    serializer.finish()
}

/// A request's headers as a JSON object (repeated headers joined with `, `), secret ones redacted.
pub fn headers(headers: &HeaderMap) -> Value {
    let mut object = Map::new();
    for name in headers.keys() {
        let value = if is_secret(name.as_str()) {
            REDACTED.to_owned()
        } else {
            headers
                .get_all(name)
                .iter()
                .map(|value| value.to_str().unwrap_or("[not text]"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        object.insert(name.as_str().to_owned(), Value::from(value));
    }
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_at_every_depth_and_nothing_else() {
        let mut body = serde_json::json!({
            "email": "integrador@lapampa.com.ar",
            "password": "LaPampa-2026",
            "society": { "id": 1, "syncCheck": "abc" },
            "tokens": [{ "accessToken": "a" }, { "refresh_token": { "value": "r" } }],
            "webhook": { "signing_secret": "whsec_x", "url": "https://erp.example.com" },
            "X-Api-Key": 7
        });
        json(&mut body);
        assert_eq!(
            body,
            serde_json::json!({
                "email": "integrador@lapampa.com.ar",
                "password": REDACTED,
                "society": { "id": 1, "syncCheck": "abc" },
                "tokens": REDACTED,
                "webhook": { "signing_secret": REDACTED, "url": "https://erp.example.com" },
                "X-Api-Key": REDACTED
            })
        );
    }

    #[test]
    fn queries_keep_their_form_unless_a_parameter_is_secret() {
        assert_eq!(
            query("page=2&updated_from=2024-01-01%2000:00:00"),
            "page=2&updated_from=2024-01-01%2000:00:00"
        );
        assert_eq!(query("page=2&access_token=abc"), "page=2&access_token=%5Bredacted%5D");
    }

    #[test]
    fn authorization_and_api_key_headers_are_redacted() {
        let mut map = HeaderMap::new();
        map.insert("authorization", "Bearer abc".parse().expect("a header value"));
        map.insert("x-svc-apikey", "k".parse().expect("a header value"));
        map.insert("accept-language", "pt".parse().expect("a header value"));
        let shown = headers(&map);
        assert_eq!(shown["authorization"], REDACTED);
        assert_eq!(shown["x-svc-apikey"], REDACTED);
        assert_eq!(shown["accept-language"], "pt");
    }
}
