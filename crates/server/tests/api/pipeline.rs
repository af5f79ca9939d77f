//! What every request goes through: the error envelope for every failure, languages, paging, filters, request ids
//! and the health check.

use domain::NextPagePolicy;
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{error_envelope, integrator, Setup};
use crate::on_both_backends;

const ESTABLISHMENTS: &str = "/api/v3/third_party/establishments";

on_both_backends! {
    async fn unknown_paths_answer_the_envelope(app) {
        let response = app.request(Method::GET, "/api/v3/third_party/no_such_thing").send().await.expect("send");
        let (code, message) = error_envelope(response, StatusCode::NOT_FOUND).await;
        assert_eq!(code, 404);
        assert!(message.contains("/api/v3/third_party/no_such_thing"), "{message}");
    }

    async fn wrong_methods_answer_the_envelope(app) {
        let token = app.token(integrator("AR")).await;
        let response = app.request(Method::PUT, ESTABLISHMENTS).bearer_auth(&token).send().await.expect("send");
        let (code, _) = error_envelope(response, StatusCode::METHOD_NOT_ALLOWED).await;
        assert_eq!(code, 405);
    }

    async fn messages_follow_accept_language(app) {
        let ask = |lang: &'static str| app.request(Method::GET, "/nowhere").header("accept-language", lang).send();
        let (_, spanish) = error_envelope(ask("es-AR").await.expect("send"), StatusCode::NOT_FOUND).await;
        let (_, portuguese) = error_envelope(ask("pt-BR,pt;q=0.9").await.expect("send"), StatusCode::NOT_FOUND).await;
        let (_, english) = error_envelope(ask("en-US").await.expect("send"), StatusCode::NOT_FOUND).await;
        let (_, default) = error_envelope(app.request(Method::GET, "/nowhere").send().await.expect("send"), StatusCode::NOT_FOUND).await;
        assert!(spanish.starts_with("La ruta"), "{spanish}");
        assert!(portuguese.starts_with("A rota"), "{portuguese}");
        assert!(english.starts_with("The path"), "{english}");
        assert_eq!(default, spanish, "Spanish by default");
    }

    async fn every_response_carries_a_request_id(app) {
        let ok = app.client.get(format!("{}/health", app.base)).send().await.expect("send");
        let failed = app.request(Method::GET, "/nowhere").send().await.expect("send");
        for response in [ok, failed] {
            let id = response.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
            assert_eq!(id.len(), 36, "a UUID request id, got {id:?}");
        }
        let given = app.request(Method::GET, "/nowhere").header("x-request-id", "erp-trace-42").send().await.expect("send");
        assert_eq!(given.headers().get("x-request-id").and_then(|v| v.to_str().ok()), Some("erp-trace-42"));
    }

    async fn a_traceparent_is_continued_and_a_request_without_one_starts_a_trace(app) {
        let traceparent = |response: &reqwest::Response| {
            response.headers().get("traceparent").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned()
        };
        let incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let continued = app.request(Method::GET, "/nowhere").header("traceparent", incoming).send().await.expect("send");
        let answered = traceparent(&continued);
        assert!(answered.starts_with("00-4bf92f3577b34da6a3ce929d0e0e4736-"), "{answered}");
        assert!(answered.ends_with("-01") && !answered.contains("00f067aa0ba902b7"), "our own span: {answered}");
        for given in [None, Some("00-not-a-trace-01")] {
            let mut request = app.client.get(format!("{}/health", app.base));
            if let Some(given) = given {
                request = request.header("traceparent", given);
            }
            let started = traceparent(&request.send().await.expect("send"));
            let fields: Vec<&str> = started.split('-').collect();
            assert_eq!(fields.len(), 4, "{started}");
            assert_eq!((fields[0], fields[1].len(), fields[2].len(), fields[3]), ("00", 32, 16, "00"), "{started}");
        }
    }

    async fn the_health_check_needs_no_credentials(app) {
        let response = app.client.get(format!("{}/health", app.base)).send().await.expect("send");
        assert_eq!(response.status(), StatusCode::OK);
        let body: Value = response.json().await.expect("JSON");
        assert_eq!(body["status"], "ok");
    }

    async fn an_unreachable_database_answers_503_in_the_envelope(app) {
        let token = app.token(integrator("AR")).await;
        app.store.close().await;
        let (code, message) = error_envelope(app.get(ESTABLISHMENTS, &token).await, StatusCode::SERVICE_UNAVAILABLE).await;
        assert_eq!(code, 503);
        assert!(message.contains("no está disponible"), "{message}");
        let health = app.client.get(format!("{}/health", app.base)).send().await.expect("send");
        error_envelope(health, StatusCode::SERVICE_UNAVAILABLE).await;
    }

    async fn lists_answer_the_envelope(app) {
        let token = app.token(integrator("AR")).await;
        let body = app.get_ok(&format!("{ESTABLISHMENTS}?size=3"), &token).await;
        let mut keys: Vec<_> = body.as_object().expect("object").keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["current_page", "items", "next_page", "total_items", "total_pages"]);
        assert_eq!(body["current_page"], 1);
        assert_eq!(body["next_page"], 2);
        assert_eq!(body["items"].as_array().map(Vec::len), Some(3));
        let total = body["total_items"].as_u64().expect("total");
        assert_eq!(body["total_pages"].as_u64(), Some(total.div_ceil(3)));
    }

    async fn pages_cover_every_item_once(app) {
        let token = app.token(integrator("AR")).await;
        let all = app.all_items(&format!("{ESTABLISHMENTS}?size=500"), &token).await;
        let paged = app.all_items(&format!("{ESTABLISHMENTS}?size=4"), &token).await;
        assert_eq!(all, paged);
        let mut ids: Vec<i64> = paged.iter().filter_map(|item| item["id"].as_i64()).collect();
        let count = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), count, "no duplicates, ordered by id");
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    }

    async fn the_last_page_has_no_next_page(app) {
        let token = app.token(integrator("AR")).await;
        let first = app.get_ok(&format!("{ESTABLISHMENTS}?size=5"), &token).await;
        let last_page = first["total_pages"].as_u64().expect("pages");
        let last = app.get_ok(&format!("{ESTABLISHMENTS}?size=5&page={last_page}"), &token).await;
        assert_eq!(last["current_page"].as_u64(), Some(last_page));
        assert!(last["next_page"].is_null());
    }

    async fn a_page_past_the_last_is_404(app) {
        let token = app.token(integrator("AR")).await;
        let first = app.get_ok(&format!("{ESTABLISHMENTS}?size=5"), &token).await;
        let past = first["total_pages"].as_u64().expect("pages") + 1;
        let (code, message) = error_envelope(app.get(&format!("{ESTABLISHMENTS}?size=5&page={past}"), &token).await, StatusCode::NOT_FOUND).await;
        assert_eq!(code, 404);
        assert!(message.contains(&past.to_string()) && message.contains("no existe"), "{message}");
    }

    async fn an_empty_list_is_one_empty_page(app) {
        let token = app.token(integrator("AR")).await;
        let body = app.get_ok(&format!("{ESTABLISHMENTS}?deleted_at_from=2099-01-01T00:00:00-03:00"), &token).await;
        assert_eq!(body, serde_json::json!({ "items": [], "current_page": 1, "next_page": null, "total_pages": 1, "total_items": 0 }));
        let (_, message) = error_envelope(app.get(&format!("{ESTABLISHMENTS}?deleted_at_from=2099-01-01T00:00:00-03:00&page=2"), &token).await, StatusCode::NOT_FOUND).await;
        assert!(message.contains('2'));
    }

    async fn bad_page_and_size_values_are_400(app) {
        let token = app.token(integrator("AR")).await;
        for query in ["page=0", "page=-1", "page=abc", "size=0", "size=501", "size=ten"] {
            error_envelope(app.get(&format!("{ESTABLISHMENTS}?{query}"), &token).await, StatusCode::BAD_REQUEST).await;
        }
    }

    async fn active_must_be_one_of_four_spellings(app) {
        let token = app.token(integrator("AR")).await;
        for good in ["1", "0", "true", "false"] {
            app.get_ok(&format!("{ESTABLISHMENTS}?active={good}"), &token).await;
        }
        let (code, message) = error_envelope(app.get(&format!("{ESTABLISHMENTS}?active=yes"), &token).await, StatusCode::BAD_REQUEST).await;
        assert_eq!(code, 400);
        assert!(message.contains("1, 0, true o false"), "states the expected format: {message}");
        let inactive = app.get_ok(&format!("{ESTABLISHMENTS}?active=0"), &token).await;
        assert_eq!(inactive["total_items"], 0, "the demo has no inactive establishments");
    }

    async fn date_filters_must_carry_an_offset(app) {
        let token = app.token(integrator("AR")).await;
        for bad in ["2024-01-01", "2024-01-01T00:00:00", "yesterday", "2024-01-01T00:00:00%2B25:00"] {
            let (_, message) = error_envelope(app.get(&format!("{ESTABLISHMENTS}?updated_at_from={bad}"), &token).await, StatusCode::BAD_REQUEST).await;
            assert!(message.contains("Y-m-dTH:i:sP"), "states the expected format: {message}");
        }
        for good in ["2024-01-01T00:00:00-03:00", "2024-01-01T00:00:00%2B00:00", "2024-01-01T00:00:00+00:00", "2024-01-01T00:00:00Z"] {
            app.get_ok(&format!("{ESTABLISHMENTS}?created_at_from={good}"), &token).await;
        }
    }

    async fn each_generation_speaks_its_own_filter_names(app) {
        let token = app.token(integrator("AR")).await;
        let (_, message) = error_envelope(app.get(&format!("{ESTABLISHMENTS}?updated_from=2024-01-01T00:00:00-03:00"), &token).await, StatusCode::BAD_REQUEST).await;
        assert!(message.contains("updated_at_from"), "{message}");
        let (_, message) = error_envelope(app.get("/api/v2/third_party/farmers?deleted_at_from=2024-01-01T00:00:00-03:00", &token).await, StatusCode::BAD_REQUEST).await;
        assert!(message.contains("deleted_from"), "{message}");
        app.get_ok("/api/v2/third_party/farmers?updated_from=2024-01-01T00:00:00-03:00", &token).await;
    }
}

fn repeat_next_page() -> Setup {
    let mut setup = Setup::default();
    setup.server.next_page = NextPagePolicy::Repeat;
    setup
}

fn small_bodies() -> Setup {
    let mut setup = Setup::default();
    setup.server.body_limit = 1024;
    setup
}

mod observed_next_page {
    use super::*;
    use crate::on_both_backends_with;

    on_both_backends_with! { repeat_next_page();
        async fn the_last_page_can_repeat_itself_as_observed(app) {
            let token = app.token(integrator("AR")).await;
            let body = app.get_ok(&format!("{ESTABLISHMENTS}?size=500"), &token).await;
            assert_eq!(body["total_pages"], 1);
            assert_eq!(body["next_page"], 1);
        }
    }
}

mod body_limit {
    use super::*;
    use crate::on_both_backends_with;

    on_both_backends_with! { small_bodies();
        async fn oversized_bodies_are_413_in_the_envelope(app) {
            let token = app.token(integrator("AR")).await;
            let body = serde_json::json!({ "name": "x".repeat(4096), "farmer_id": 1 });
            let (code, message) = error_envelope(app.post(ESTABLISHMENTS, &token, &body).await, StatusCode::PAYLOAD_TOO_LARGE).await;
            assert_eq!(code, 413);
            assert!(message.contains("1024"), "{message}");
        }
    }
}

/// What the request's head may hold: credential headers once, no NUL in the query, bounded URI and headers; and the
/// refusals the HTTP layer makes before a request exists, in the envelope too.
mod head {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    use super::*;

    /// Sends `bytes` on a connection of its own to `app`'s address (always 127.0.0.1) and reads the whole answer:
    /// its status, and its body as JSON.
    async fn raw(base: &str, bytes: &[u8]) -> (u16, Value) {
        let address = base.trim_start_matches("http://");
        let mut stream = TcpStream::connect(address).await.expect("connect to the test server");
        // A head the server refuses early may be cut off while it is still being sent: what was sent is enough.
        let _ = stream.write_all(bytes).await;
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
            .await
            .expect("the server answers and closes")
            .expect("read the answer");
        let text = String::from_utf8_lossy(&answer).into_owned();
        let status = text.get(9..12).and_then(|code| code.parse().ok()).unwrap_or_default();
        let body = text.split_once("\r\n\r\n").map_or("", |(_, body)| body);
        let body = serde_json::from_str(body).unwrap_or_else(|_| panic!("an envelope body: {text:?}"));
        (status, body)
    }

    /// The envelope's code and message, checked to be the envelope with no trace frames.
    fn envelope(body: &Value) -> (i64, &str) {
        let error = body["error"].as_object().expect("an `error` object");
        assert!(error["reason"].is_string(), "{body}");
        // `errors` on a 400 only, as every 400 has it.
        let listed = error["code"] == 400;
        assert_eq!(error.contains_key("errors"), listed, "{body}");
        assert_eq!(error.len(), 4 + usize::from(listed), "{body}");
        assert_eq!(error["exception"], serde_json::json!([]), "{body}");
        (
            error["code"].as_i64().expect("a code"),
            error["message"].as_str().expect("a message"),
        )
    }

    on_both_backends! {
        async fn repeated_credential_headers_are_400_in_the_envelope(app) {
            let token = app.token(integrator("AR")).await;
            let twice = |name: &'static str, first: String, second: String| {
                app.client
                    .get(format!("{}{ESTABLISHMENTS}", app.base))
                    .header(name, first)
                    .header(name, second)
            };
            let bearer = format!("Bearer {token}");
            let cases = [
                ("X-SVC-SYSTEM-ID", twice("X-SVC-SYSTEM-ID", "8".into(), "9".into()).bearer_auth(&token)),
                ("Authorization", twice("Authorization", bearer.clone(), "Bearer forged".into()).header("X-SVC-SYSTEM-ID", "8")),
                ("X-SVC-APIKEY", twice("X-SVC-APIKEY", "a".into(), "b".into()).bearer_auth(&token).header("X-SVC-SYSTEM-ID", "8")),
                ("Idempotency-Key", twice("Idempotency-Key", "k1".into(), "k2".into()).bearer_auth(&token).header("X-SVC-SYSTEM-ID", "8")),
                ("If-Match", twice("If-Match", "\"1\"".into(), "\"2\"".into()).bearer_auth(&token).header("X-SVC-SYSTEM-ID", "8")),
            ];
            for (name, request) in cases {
                let response = request.header("accept-language", "en").send().await.expect("send");
                let (code, message) = error_envelope(response, StatusCode::BAD_REQUEST).await;
                assert_eq!(code, 400);
                assert!(message.contains(name) && message.contains("more than once"), "{name}: {message}");
            }
            app.get_ok(ESTABLISHMENTS, &token).await;
        }

        async fn nul_in_any_query_parameter_is_400(app) {
            let token = app.token(integrator("AR")).await;
            for query in ["?unknown=%00", "?active=1&x=a%00b", "?%00=1"] {
                let response = app.get(&format!("{ESTABLISHMENTS}{query}"), &token).await;
                let (code, message) = error_envelope(response, StatusCode::BAD_REQUEST).await;
                assert_eq!(code, 400);
                assert!(message.contains("NUL"), "{query}: {message}");
            }
            let health = app.client.get(format!("{}/health?x=%00", app.base)).send().await.expect("send");
            error_envelope(health, StatusCode::BAD_REQUEST).await;
        }

        async fn the_http_layers_own_refusals_answer_the_envelope_in_the_callers_language(app) {
            // A URI past our bound (hyper's is 65,534 bytes): ours, in the language asked.
            let long = format!("GET /health?x={} HTTP/1.1\r\nHost: a\r\nAccept-Language: en\r\nConnection: close\r\n\r\n", "a".repeat(9_000));
            let (status, body) = raw(&app.base, long.as_bytes()).await;
            assert_eq!((status, envelope(&body).0), (414, 414), "{body}");
            assert!(envelope(&body).1.contains("URI exceeds the maximum of 8192 bytes"), "{body}");
            // Headers past our bound (hyper's is its read buffer, about 400 KiB).
            let large = format!("GET /health HTTP/1.1\r\nHost: a\r\nAccept-Language: pt\r\nX-Big: {}\r\nConnection: close\r\n\r\n", "b".repeat(40_000));
            let (status, body) = raw(&app.base, large.as_bytes()).await;
            assert_eq!((status, envelope(&body).0), (431, 431), "{body}");
            assert!(envelope(&body).1.contains("cabeçalhos da requisição excedem"), "{body}");
            // What only hyper sees, answered in the default language: a malformed request line, a malformed header
            // line, a URI and a head past hyper's own bounds, more headers than it reads.
            let huge_uri = format!("GET /{} HTTP/1.1\r\nHost: a\r\n\r\n", "c".repeat(70_000));
            let huge_head = format!("GET / HTTP/1.1\r\nHost: a\r\nX-Huge: {}\r\n\r\n", "d".repeat(500_000));
            let many: String = (0..120).map(|i| format!("X-H{i}: v\r\n")).collect();
            let many = format!("GET /health HTTP/1.1\r\nHost: a\r\n{many}\r\n");
            let cases: [(&[u8], u16, &str); 5] = [
                (b"this is not http\r\n\r\n", 400, "no es HTTP/1.1"),
                (b"GET /health HTTP/1.1\r\nHost: a\r\nno colon here\r\n\r\n", 400, "no es HTTP/1.1"),
                (huge_uri.as_bytes(), 414, "URI de la solicitud"),
                (huge_head.as_bytes(), 431, "encabezados de la solicitud"),
                (many.as_bytes(), 431, "encabezados de la solicitud"),
            ];
            for (bytes, expected, words) in cases {
                let (status, body) = raw(&app.base, bytes).await;
                let (code, message) = envelope(&body);
                assert_eq!((status, code), (expected, i64::from(expected)), "{body}");
                assert!(message.contains(words), "{expected}: {message}");
            }
        }
    }
}
