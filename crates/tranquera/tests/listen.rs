//! End-to-end test of `tranquera listen`: the real binary follows the real feed and forwards each event to a local
//! receiver, which checks every delivery with the SDK's `webhooks::verify` under the secret `listen` printed.

mod sandbox;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use client::wire::establishments::NewEstablishment;
use client::Filters;
use futures_util::TryStreamExt as _;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, BufReader, Lines};
use tokio::process::ChildStdout;
use tokio::sync::mpsc;

use sandbox::sandbox;

/// What the receiver got: the verified event's type and resource id, the body as JSON, and the delivery id.
type Delivery = (String, i64, Value, String);

/// The receiver: answers 500 to the very first delivery (so `listen` retries it once) and 200 to the rest.
#[derive(Clone)]
struct Receiver {
    secret: Arc<std::sync::OnceLock<String>>,
    failed_once: Arc<AtomicBool>,
    deliveries: mpsc::UnboundedSender<Result<Delivery, String>>,
}

async fn receive(State(receiver): State<Receiver>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let Some(secret) = receiver.secret.get() else {
        return StatusCode::SERVICE_UNAVAILABLE;
    };
    if !receiver.failed_once.swap(true, Ordering::SeqCst) {
        return StatusCode::INTERNAL_SERVER_ERROR;
    }
    let verified = client::webhooks::verify(secret, &headers, &body)
        .map_err(|e| e.to_string())
        .map(|event| {
            let id = headers["webhook-id"].to_str().expect("text").to_owned();
            (
                event.kind,
                event.resource_id,
                serde_json::from_slice(&body).expect("JSON"),
                id,
            )
        });
    let status = if verified.is_ok() {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    let _ = receiver.deliveries.send(verified);
    status
}

async fn line(lines: &mut Lines<BufReader<ChildStdout>>) -> String {
    tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("a line within 30 s")
        .expect("stdout")
        .expect("listen is still running")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_forwards_signed_deliveries_that_the_sdk_verifies() {
    let sandbox = sandbox("listen").await;
    let (sender, mut deliveries) = mpsc::unbounded_channel();
    let receiver = Receiver {
        secret: Arc::default(),
        failed_once: Arc::default(),
        deliveries: sender,
    };
    let app = axum::Router::new()
        .route("/hooks", axum::routing::post(receive))
        .with_state(receiver.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the receiver");
    let hooks = format!("http://{}/hooks", listener.local_addr().expect("address"));
    tokio::spawn(async move { axum::serve(listener, app).await });

    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_tranquera"))
        .arg("listen")
        .args([
            "--lang",
            "en",
            "--base-url",
            &sandbox.base,
            "--forward-to",
            &hooks,
            "--types",
            "establishment.*",
        ])
        .env("TRANQUERA_EMAIL", sandbox.email)
        .env("TRANQUERA_PASSWORD", sandbox.password)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start tranquera listen");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let ready = line(&mut lines).await;
    let secret = ready
        .split_whitespace()
        .find(|word| word.starts_with("whsec_"))
        .unwrap_or_else(|| panic!("the secret comes first: {ready}"))
        .to_owned();
    receiver.secret.set(secret).expect("set once");

    let api = &sandbox.api;
    let farmer = api
        .farmers(&Filters::new())
        .try_next()
        .await
        .expect("farmers")
        .expect("a farmer");
    let mut created = Vec::new();
    for name in ["Escuchada 1", "Escuchada 2"] {
        let body = NewEstablishment {
            name: name.to_owned(),
            farmer_id: farmer.id,
            external_code: None,
            active: None,
        };
        created.push(api.create_establishment(&body).await.expect("create").id);
    }
    api.delete_establishment(created[0]).await.expect("delete");

    let mut received = Vec::new();
    while received.len() < 3 {
        let delivery = tokio::time::timeout(Duration::from_secs(30), deliveries.recv())
            .await
            .expect("a delivery within 30 s")
            .expect("the receiver runs");
        received.push(delivery.expect("the SDK verifies the delivery"));
    }
    let got: Vec<(&str, i64)> = received.iter().map(|(kind, id, _, _)| (kind.as_str(), *id)).collect();
    assert_eq!(
        got,
        [
            ("establishment.created", created[0]),
            ("establishment.created", created[1]),
            ("establishment.deleted", created[0]),
        ]
    );
    // The body is the feed's item as the feed answers it, and the delivery id names the event.
    let page: Value = api
        .get(
            client::EVENTS_PATH,
            vec![("types", "establishment.*".to_owned()), ("size", "1000".to_owned())],
        )
        .await
        .expect("the feed");
    let items = page["items"].as_array().expect("items");
    for (_, _, body, webhook_id) in &received {
        assert!(items.contains(body), "{body} is a feed item");
        assert_eq!(*webhook_id, format!("evt_{}", body["id"]));
    }

    let mut printed = Vec::new();
    for _ in 0..4 {
        printed.push(line(&mut lines).await);
    }
    assert!(
        printed[0].contains("establishment.created") && printed[0].contains("[500]"),
        "{printed:?}"
    );
    assert!(
        printed[1].contains("[200]") && printed[1].contains("(retry)"),
        "{printed:?}"
    );
    for (printed, id) in printed[2..].iter().zip([created[1], created[0]]) {
        assert!(
            printed.contains("[200]") && printed.contains(&id.to_string()),
            "{printed}"
        );
        assert!(printed.contains(" ms]"), "the latency is printed: {printed}");
    }
    // Each line's time is the society's, with its offset, written as the API writes times: the Argentine
    // society's events carry -03:00.
    let offset = received[0].2["occurred_at"]
        .as_str()
        .and_then(|at| at.get(19..))
        .expect("an occurred_at with an offset")
        .to_owned();
    assert_eq!(offset, "-03:00", "the sandbox's society is Argentine");
    for line in &printed {
        let time = line.split_whitespace().next().expect("a time first");
        assert!(
            chrono::DateTime::parse_from_str(time, "%Y-%m-%dT%H:%M:%S%:z").is_ok() && time.ends_with(&offset),
            "the time is the society's, with its offset: {line}"
        );
    }
    child.kill().await.expect("stop listen");
}
