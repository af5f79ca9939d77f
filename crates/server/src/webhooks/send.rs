//! One attempt of one delivery over HTTP: signed as the Standard Webhooks specification says (with the official
//! `standardwebhooks` crate), sent with no proxy, no redirects and a time-out, and only ever to an address the URL
//! policy allows. The address is checked where it is used: a host name is resolved by [`CheckedResolver`], which drops
//! refused addresses, so the address connected to is the one checked (no DNS rebinding between a check and the
//! connection); an IP literal, which is never resolved, is checked before sending.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use domain::webhooks::{EndpointCommand, UrlPolicy};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{HeaderMap, HeaderValue, CONTENT_TYPE};
use secrecy::ExposeSecret;
use standardwebhooks::Webhook;
use store::webhooks::deliveries::{Attempt, ClaimedDelivery};

/// What deliveries say they are.
pub const USER_AGENT: &str = "Tranquera-Webhooks/1";
/// Bytes of an answer kept with its attempt.
pub const RESPONSE_HEAD: usize = 512;

/// Resolves host names to the addresses `policy` allows only.
#[derive(Debug, Clone, Copy)]
pub struct CheckedResolver {
    policy: UrlPolicy,
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy;
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let resolved: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let mut refused: Vec<&'static str> = Vec::new();
            let mut allowed: Vec<SocketAddr> = Vec::with_capacity(resolved.len());
            for address in resolved {
                match policy.refuses(address.ip()) {
                    None => allowed.push(address),
                    Some(kind) if !refused.contains(&kind.rule()) => refused.push(kind.rule()),
                    Some(_) => {}
                }
            }
            if allowed.is_empty() {
                // The rules, never the addresses: the attempt is read by the tenant, and the server's DNS answers
                // are not theirs to map.
                let rules = refused.join(", ");
                return Err(
                    format!("{host} resolves only to addresses this server does not deliver to ({rules})").into(),
                );
            }
            let addresses: Addrs = Box::new(allowed.into_iter());
            Ok(addresses)
        })
    }
}

/// The HTTP client of deliveries under `policy`, timing out after `timeout`.
pub fn client(policy: UrlPolicy, timeout: Duration) -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(Arc::new(CheckedResolver { policy }))
        .user_agent(USER_AGENT)
        .build()
}

/// The `webhook-signature` of `body`: one `v1,…` signature per secret, separated by spaces.
pub fn signature(delivery: &ClaimedDelivery, msg_id: &str, timestamp: i64) -> Result<String, String> {
    let mut signatures = Vec::with_capacity(delivery.secrets.len());
    for secret in &delivery.secrets {
        let signer = Webhook::new(secret.expose_secret()).map_err(|error| error.to_string())?;
        signatures.push(
            signer
                .sign(msg_id, timestamp, delivery.body.as_bytes())
                .map_err(|error| error.to_string())?,
        );
    }
    Ok(signatures.join(" "))
}

/// Sends `delivery` once, at `now` (epoch ms), and answers what happened.
pub async fn attempt(client: &reqwest::Client, policy: UrlPolicy, delivery: &ClaimedDelivery, now: i64) -> Attempt {
    let started = tokio::time::Instant::now();
    let outcome = send(client, policy, delivery, now).await;
    let latency = started.elapsed();
    match outcome {
        Ok((status, head)) => Attempt {
            attempted_at: now,
            status_code: Some(status),
            latency,
            response_head: Some(head),
            error: None,
        },
        Err(error) => Attempt {
            attempted_at: now,
            status_code: None,
            latency,
            response_head: None,
            error: Some(error),
        },
    }
}

async fn send(
    client: &reqwest::Client,
    policy: UrlPolicy,
    delivery: &ClaimedDelivery,
    now: i64,
) -> Result<(u16, String), String> {
    // The URL was checked when it was registered; the policy may have changed since, and an IP literal is never
    // resolved, so the check is made again here.
    let checked = EndpointCommand {
        url: delivery.url.clone(),
        types: vec![],
        description: None,
    };
    let url = checked
        .check(policy)
        .map_err(|_| format!("{} is not a URL this server delivers to", delivery.url))?;
    let msg_id = format!("evt_{}", delivery.event_id);
    let timestamp = now.div_euclid(1000);
    let mut headers = HeaderMap::new();
    let value = |text: &str| HeaderValue::from_str(text).map_err(|error| error.to_string());
    headers.insert("webhook-id", value(&msg_id)?);
    headers.insert("webhook-timestamp", value(&timestamp.to_string())?);
    headers.insert("webhook-signature", value(&signature(delivery, &msg_id, timestamp)?)?);
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    let mut response = client
        .post(url)
        .headers(headers)
        .body(delivery.body.clone())
        .send()
        .await
        .map_err(|error| describe(&error))?;
    let status = response.status().as_u16();
    let mut head = Vec::with_capacity(RESPONSE_HEAD);
    while head.len() < RESPONSE_HEAD {
        match response.chunk().await {
            Ok(Some(chunk)) => head.extend_from_slice(&chunk[..chunk.len().min(RESPONSE_HEAD - head.len())]),
            // The status is what decides; a body cut short is kept as far as it came.
            Err(_) | Ok(None) => break,
        }
    }
    // PostgreSQL's text holds no NUL.
    Ok((status, String::from_utf8_lossy(&head).replace('\0', "")))
}

/// A failed request in a few words, with its cause (a refused address, a time-out, a refused connection).
fn describe(error: &reqwest::Error) -> String {
    let mut text = if error.is_timeout() {
        "timed out".to_owned()
    } else if error.is_connect() {
        "could not connect".to_owned()
    } else {
        "request failed".to_owned()
    };
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    #[tokio::test]
    async fn the_resolver_drops_refused_addresses_so_a_name_cannot_lead_inside() {
        let serve = CheckedResolver {
            policy: UrlPolicy::default(),
        };
        let name = || Name::from_str("localhost").expect("a name");
        let refused = serve.resolve(name()).await.err().expect("localhost refused in serve");
        let text = refused.to_string();
        assert!(text.contains("localhost") && text.contains("loopback"), "{text}");
        assert!(
            !text.contains("127.0.0.1") && !text.contains("::1"),
            "no resolved address is told: {text}"
        );
        let demo = CheckedResolver {
            policy: UrlPolicy::DEMO,
        };
        let addresses: Vec<SocketAddr> = demo.resolve(name()).await.expect("localhost in demo").collect();
        assert!(addresses.iter().all(|address| address.ip().is_loopback()) && !addresses.is_empty());
    }
}
