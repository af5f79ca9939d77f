//! What the console never stores: secrets in fields, query parameters and headers, found by pattern. A name is
//! split into words (at `_`, `-`, `.`, spaces and a lower-case letter followed by a capital), and holds a secret when
//! one of its words is a secret's word (`pass`, `pwd`, `key`, `auth`, `bearer`, `sid`…) or the name, folded without
//! case and separators, contains a secret's longer word (`password`, `token`, `apikey`, `secret`, `credential`,
//! `authoriz`…): so `access_token`, `refreshToken`, `new_password`, `api_key`, `auth.bearer`, `X-Custom-Auth` and
//! `Proxy-Authorization` are all caught, and a JSON field so named loses everything beneath it. A header's or query
//! parameter's value that carries an HTTP credential (`Bearer …`, `Basic …`) or a webhook signing secret (`whsec_…`)
//! is hidden whatever its name, and a header whose name says it authenticates loses its whole value, not only the
//! credential in it. JSON is searched at every depth.

use axum::http::HeaderMap;
use serde_json::{Map, Value};

/// What stands in for a redacted value.
pub const REDACTED: &str = "[redacted]";

/// Words that, as one word of a name, say its value is secret. Short ones are matched as whole words only, so
/// `monkey`, `compass` and `considered` keep their values.
const SECRET_WORDS: &[&str] = &[
    "pass", "pwd", "pw", "pin", "key", "keys", "auth", "authn", "authz", "oauth", "bearer", "sid", "jwt", "otp", "sig",
    "session", "private",
];

/// Parts that, anywhere in a name folded without case and separators, say its value is secret: long enough that a
/// name holding one is a secret's name (`newpassword`, `accesstoken`, `xapikey`, `proxyauthorization`).
const SECRET_PARTS: &[&str] = &[
    "passw",
    "passphrase",
    "passcode",
    "secret",
    "token",
    "apikey",
    "authoriz",
    "authent",
    "credential",
    "cookie",
    "signature",
    "sessionid",
    "sessid",
    "privatekey",
];

/// Names that a secret's pattern would catch but that carry none, and that the integrator debugging a request needs
/// to see: an idempotency key only names a retry, and only to the society that sent it.
const NOT_SECRET: &[&str] = &["idempotencykey"];

/// The HTTP authentication schemes a credential starts with, in any header or query value whatever its name.
const CREDENTIAL_SCHEMES: &[&str] = &[
    "bearer",
    "basic",
    "digest",
    "negotiate",
    "ntlm",
    "token",
    "hoba",
    "mutual",
];

/// How every webhook signing secret begins.
const SIGNING_SECRET: &str = "whsec_";

/// A name's words, lower-cased: split at separators and where a lower-case letter or digit meets a capital.
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            words.push(std::mem::take(&mut word));
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    words.push(word);
    words.retain(|word| !word.is_empty());
    words
}

/// Whether a field, parameter or header named `name` holds a secret.
pub fn is_secret(name: &str) -> bool {
    let words = words(name);
    let folded: String = words.concat();
    if NOT_SECRET.contains(&folded.as_str()) {
        return false;
    }
    words.iter().any(|word| SECRET_WORDS.contains(&word.as_str()))
        || SECRET_PARTS.iter().any(|part| folded.contains(part))
}

/// Whether a header's or query parameter's value is a credential whatever it is named: an HTTP authentication
/// scheme followed by its credentials, or a webhook signing secret.
pub fn is_secret_value(value: &str) -> bool {
    let value = value.trim();
    let scheme = value.split_whitespace().next().unwrap_or_default();
    let has_credentials = value.len() > scheme.len();
    (has_credentials
        && CREDENTIAL_SCHEMES
            .iter()
            .any(|known| scheme.eq_ignore_ascii_case(known)))
        || value.contains(SIGNING_SECRET)
}

/// Replaces, at every depth of `value`, the value of every secret field, whatever its type, and every text that
/// holds a webhook signing secret.
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
        Value::String(text) if text.contains(SIGNING_SECRET) => *text = REDACTED.to_owned(),
        _ => {}
    }
}

/// A query string with the values of its secret parameters replaced; a query without any is kept as it came.
pub fn query(query: &str) -> String {
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let secret = |(name, value): &(String, String)| is_secret(name) || is_secret_value(value);
    if !pairs.iter().any(secret) {
        return query.to_owned();
    }
    let mut serializer = url::form_urlencoded::Serializer::new(String::new());
    for pair in &pairs {
        let shown = if secret(pair) { REDACTED } else { pair.1.as_str() };
        serializer.append_pair(&pair.0, shown);
    }
    serializer.finish()
}

/// A request's headers as a JSON object (repeated headers joined with `, `): a header whose name says it holds a
/// secret, or one of whose values is a credential, is shown as [`REDACTED`] whole.
pub fn headers(headers: &HeaderMap) -> Value {
    let mut object = Map::new();
    for name in headers.keys() {
        let values: Vec<&str> = headers
            .get_all(name)
            .iter()
            .map(|value| value.to_str().unwrap_or("[not text]"))
            .collect();
        let value = if is_secret(name.as_str()) || values.iter().copied().any(is_secret_value) {
            REDACTED.to_owned()
        } else {
            values.join(", ")
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

    /// Names of secrets, as bodies, queries and headers spell them: each is redacted.
    const SECRET_NAMES: &[&str] = &[
        "pass",
        "pwd",
        "PWD",
        "userPwd",
        "passwd",
        "password",
        "new_password",
        "passphrase",
        "pin",
        "key",
        "api_key",
        "apiKey",
        "APIKey",
        "X-Api-Key",
        "x-svc-apikey",
        "private_key",
        "secret",
        "previous_secret",
        "client-secret",
        "token",
        "access_token",
        "refreshToken",
        "id_token",
        "auth",
        "auth.bearer",
        "bearer",
        "oauth",
        "credentials",
        "credential",
        "authorization",
        "Authorization",
        "Proxy-Authorization",
        "X-Custom-Auth",
        "X-Auth-User",
        "WWW-Authenticate",
        "cookie",
        "Set-Cookie",
        "session",
        "sessionId",
        "PHPSESSID",
        "webhook-signature",
        "X-Hub-Signature-256",
        "sig",
        "jwt",
        "otp",
    ];

    /// Names a secret's word only resembles, or that carry none: each is kept.
    const PLAIN_NAMES: &[&str] = &[
        "email",
        "name",
        "external_code",
        "syncCheck",
        "monkey",
        "keyboard",
        "compass",
        "passage",
        "author",
        "spinner",
        "x-request-id",
        "accept-language",
        "Idempotency-Key",
        "x-svc-system-id",
        "types",
        "url",
    ];

    #[test]
    fn names_are_judged_by_pattern() {
        for name in SECRET_NAMES {
            assert!(is_secret(name), "{name} is a secret's name");
        }
        for name in PLAIN_NAMES {
            assert!(!is_secret(name), "{name} holds no secret");
        }
    }

    #[test]
    fn credentials_are_found_by_their_value_whatever_their_name() {
        for value in [
            "Bearer abc.def",
            "bearer x",
            "Basic dXNlcjpwYXNz",
            "Digest username=\"a\"",
            "whsec_abc",
            " Token t",
        ] {
            assert!(is_secret_value(value), "{value}");
        }
        for value in ["Bearer", "pt-BR", "application/json", "Basic", "8", "La Tranquera"] {
            assert!(!is_secret_value(value), "{value}");
        }
        assert_eq!(query("next=Bearer%20abc&page=2"), "next=%5Bredacted%5D&page=2");
        let mut body = serde_json::json!({"note": ["whsec_leaked", "kept"]});
        json(&mut body);
        assert_eq!(body, serde_json::json!({"note": [REDACTED, "kept"]}));
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
    fn authorization_like_headers_are_redacted_whole() {
        let mut map = HeaderMap::new();
        map.insert("authorization", "Bearer abc".parse().expect("a header value"));
        map.insert("x-svc-apikey", "k".parse().expect("a header value"));
        map.insert("accept-language", "pt".parse().expect("a header value"));
        map.insert(
            "proxy-authorization",
            "Basic dXNlcjpwYXNz".parse().expect("a header value"),
        );
        map.insert("x-custom-auth", "anything at all".parse().expect("a header value"));
        map.insert("x-forwarded-credentials", "k".parse().expect("a header value"));
        map.append("x-note", "plain".parse().expect("a header value"));
        map.append("x-note", "Bearer hidden".parse().expect("a header value"));
        map.insert("idempotency-key", "retry-7".parse().expect("a header value"));
        let shown = headers(&map);
        for name in [
            "authorization",
            "x-svc-apikey",
            "proxy-authorization",
            "x-custom-auth",
            "x-forwarded-credentials",
            "x-note",
        ] {
            assert_eq!(shown[name], REDACTED, "{name}");
        }
        assert_eq!(shown["accept-language"], "pt");
        assert_eq!(shown["idempotency-key"], "retry-7");
    }
}
