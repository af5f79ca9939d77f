//! Webhook endpoints and their deliveries: the rules of an endpoint's URL (the server-side request forgery rules,
//! with the addresses a delivery may never reach in [`addresses`]), how many endpoints a society may have, how often
//! one endpoint may be sent to, the retry schedule, when a failing endpoint is given up, and the format of signing
//! secrets.

mod addresses;

use std::net::IpAddr;
use std::time::Duration;

use base64::Engine;
use rand::RngCore;
use url::{Host, Url};

use crate::events::EventTypes;
use crate::refusal::{verdict, Refusal, Rule, Violation};

/// Longest description an endpoint may have, and longest URL, in characters (kept with every other text's bound).
pub use crate::text::{MAX_DESCRIPTION, MAX_URL};
/// How long a rotated-out secret still signs deliveries, beside the new one, so receivers can switch without loss.
pub const SECRET_OVERLAP: Duration = Duration::from_secs(24 * 60 * 60);
/// How long an endpoint may fail (no delivery to it succeeding) before it is disabled, and how long one delivery is
/// retried.
pub const GIVE_UP_AFTER: Duration = Duration::from_secs(3 * 24 * 60 * 60);
/// The back-off before the first retry; each further failure doubles it, up to [`MAX_RETRY_DELAY`].
pub const FIRST_RETRY_DELAY: Duration = Duration::from_secs(5);
/// The longest back-off between two attempts.
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(60 * 60);
/// The shortest wait before a retry, whatever the jitter drew: a failing receiver is never hammered.
pub const MIN_RETRY_DELAY: Duration = Duration::from_secs(1);
/// The prefix of a signing secret, as the Standard Webhooks specification writes it.
pub const SECRET_PREFIX: &str = "whsec_";
/// The most endpoints a society may have (deleted ones aside, disabled ones counted): every event is delivered once
/// to each, so this bounds how many requests one change can become.
pub const MAX_ENDPOINTS: usize = 10;
/// The most delivery attempts a server process makes to one endpoint in a second, retries included: attempts are
/// spaced by at least a `1 / MAX_ATTEMPTS_PER_SECOND` of a second, so a burst of events reaches a receiver as a
/// steady stream instead of all at once.
pub const MAX_ATTEMPTS_PER_SECOND: u32 = 25;

pub use addresses::{refused_address, RefusedAddress};

/// Which URLs this server delivers to: an operator's settings (`serve` refuses both; `demo` allows both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UrlPolicy {
    /// `http://` URLs are allowed besides `https://`.
    pub allow_http: bool,
    /// Loopback, private, link-local and other internal addresses may be delivered to.
    pub allow_private_addresses: bool,
}

impl UrlPolicy {
    /// What `demo` allows: integrators test against a receiver on their laptop.
    pub const DEMO: UrlPolicy = UrlPolicy {
        allow_http: true,
        allow_private_addresses: true,
    };

    /// Why a delivery may not connect to `address`, if it may not.
    pub fn refuses(self, address: IpAddr) -> Option<RefusedAddress> {
        if self.allow_private_addresses {
            None
        } else {
            refused_address(address)
        }
    }
}

/// A webhook endpoint as a create asks for it.
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointCommand {
    /// Where deliveries are sent.
    pub url: String,
    /// The event types wanted (`work_order.created`, or `work_order.*` for every action); empty for every type.
    pub types: Vec<String>,
    /// What the endpoint is for, for people.
    pub description: Option<String>,
}

impl EndpointCommand {
    /// Checks the URL against `policy` and every type against the feed's types; answers the URL parsed. A host name
    /// is only judged here when it names this host (`localhost`); what it resolves to is the caller's to check, and is
    /// checked again at every delivery.
    pub fn check(&self, policy: UrlPolicy) -> Result<Url, Refusal> {
        let mut violations = Vec::new();
        let url = check_url(&self.url, policy, &mut violations);
        for (index, kind) in self.types.iter().enumerate() {
            if !known_type(kind) {
                violations.push(Violation::new(
                    format!("types[{index}]"),
                    Rule::UnknownEventType(kind.clone()),
                ));
            }
        }
        if let Some(description) = &self.description {
            if description.chars().count() > MAX_DESCRIPTION {
                violations.push(Violation::new("description", Rule::TooLong(MAX_DESCRIPTION)));
            }
        }
        verdict(violations)?;
        url.ok_or_else(|| Refusal::Invalid(vec![Violation::new("url", Rule::NotAUrl)]))
    }
}

/// Whether `kind` is one event type, or `<resource>.*`, as the feed names them.
fn known_type(kind: &str) -> bool {
    !kind.trim().is_empty() && !kind.contains(',') && EventTypes::parse(kind).is_ok()
}

fn check_url(text: &str, policy: UrlPolicy, violations: &mut Vec<Violation>) -> Option<Url> {
    let mut refuse = |rule: Rule| violations.push(Violation::new("url", rule));
    if text.chars().count() > MAX_URL {
        refuse(Rule::TooLong(MAX_URL));
        return None;
    }
    let Ok(url) = Url::parse(text.trim()) else {
        refuse(Rule::NotAUrl);
        return None;
    };
    match (url.scheme(), policy.allow_http) {
        ("https", _) | ("http", true) => {}
        (_, allow_http) => {
            refuse(Rule::SchemeNotAllowed(if allow_http { "https, http" } else { "https" }));
            return None;
        }
    }
    let refused = match url.host() {
        None => {
            refuse(Rule::NotAUrl);
            return None;
        }
        Some(Host::Ipv4(v4)) => policy.refuses(IpAddr::V4(v4)).map(|kind| (v4.to_string(), kind)),
        Some(Host::Ipv6(v6)) => policy.refuses(IpAddr::V6(v6)).map(|kind| (v6.to_string(), kind)),
        Some(Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            let local = name == "localhost" || name.ends_with(".localhost");
            (local && !policy.allow_private_addresses).then_some((name, RefusedAddress::Loopback))
        }
    };
    if let Some((address, kind)) = refused {
        refuse(Rule::AddressRefused { address, kind });
        return None;
    }
    Some(url)
}

/// A new signing secret: `whsec_` and the base64 of 32 random bytes, as the Standard Webhooks libraries read it.
pub fn new_secret() -> String {
    let mut key = [0_u8; 32];
    rand::thread_rng().fill_bytes(&mut key);
    format!(
        "{SECRET_PREFIX}{}",
        base64::engine::general_purpose::STANDARD.encode(key)
    )
}

/// How long to wait after a delivery's `failed_attempts`-th failed attempt: exponential back-off from
/// [`FIRST_RETRY_DELAY`], capped at [`MAX_RETRY_DELAY`], with full jitter (`jitter` drawn from 0 to 1), so the
/// retries of many deliveries failing together spread out instead of arriving together.
pub fn retry_delay(failed_attempts: u32, jitter: f64) -> Duration {
    let doublings = failed_attempts.saturating_sub(1).min(30);
    let ceiling = FIRST_RETRY_DELAY
        .saturating_mul(1_u32 << doublings)
        .min(MAX_RETRY_DELAY);
    ceiling.mul_f64(jitter.clamp(0.0, 1.0)).max(MIN_RETRY_DELAY)
}

/// Whether something failing since `failing_since` (epoch ms) is given up at `now` (epoch ms).
pub fn gives_up(failing_since: i64, now: i64) -> bool {
    let window = i64::try_from(GIVE_UP_AFTER.as_millis()).unwrap_or(i64::MAX);
    now.saturating_sub(failing_since) >= window
}

/// When the next attempt to an endpoint may be made (epoch ms), given the time kept for its last one (`None` when
/// there was none) and `now`: no earlier than `interval` after the last, and never in the past. Each attempt takes
/// the slot this answers, so attempts to one endpoint are at least `interval` apart however many are due.
pub fn next_slot(last: Option<i64>, now: i64, interval: Duration) -> i64 {
    let interval = i64::try_from(interval.as_millis()).unwrap_or(i64::MAX);
    last.map_or(now, |last| last.saturating_add(interval).max(now))
}

/// The spacing of attempts to one endpoint at `per_second` attempts a second (at least one).
pub fn attempt_interval(per_second: u32) -> Duration {
    Duration::from_secs(1) / per_second.max(1)
}

/// Whether an HTTP status answers a delivery as received.
pub fn delivered(status: u16) -> bool {
    (200..300).contains(&status)
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryStatus {
    /// Waiting for its next attempt (`next_attempt_at`).
    Pending,
    /// Claimed by a worker, under a lease.
    Delivering,
    /// A 2xx answer was received.
    Succeeded,
    /// Retried for [`GIVE_UP_AFTER`] without success; a retry asked through the API sends it again.
    Failed,
    /// Its endpoint was deleted or disabled before it could be delivered.
    Abandoned,
}

impl DeliveryStatus {
    /// As stored and answered.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Delivering => "delivering",
            DeliveryStatus::Succeeded => "succeeded",
            DeliveryStatus::Failed => "failed",
            DeliveryStatus::Abandoned => "abandoned",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(url: &str) -> EndpointCommand {
        EndpointCommand {
            url: url.into(),
            types: vec![],
            description: None,
        }
    }

    fn rules(result: Result<Url, Refusal>) -> Vec<Rule> {
        match result {
            Err(Refusal::Invalid(violations)) => violations.into_iter().map(|v| v.rule).collect(),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn serve_takes_only_https_to_public_hosts() {
        let serve = UrlPolicy::default();
        assert!(command("https://erp.example.com/hooks").check(serve).is_ok());
        assert!(command("https://1.1.1.1:8443/hooks").check(serve).is_ok());
        assert!(command("https://[2606:4700:4700::1111]/hooks").check(serve).is_ok());
        assert_eq!(
            rules(command("http://erp.example.com/hooks").check(serve)),
            [Rule::SchemeNotAllowed("https")]
        );
        assert_eq!(rules(command("not a url").check(serve)), [Rule::NotAUrl]);
        assert_eq!(
            rules(command("ftp://erp.example.com").check(serve)),
            [Rule::SchemeNotAllowed("https")]
        );
        for (url, kind) in [
            ("https://127.0.0.1/", RefusedAddress::Loopback),
            ("https://localhost:3000/", RefusedAddress::Loopback),
            ("https://10.1.2.3/", RefusedAddress::Private),
            ("https://172.16.0.1/", RefusedAddress::Private),
            ("https://192.168.1.1/", RefusedAddress::Private),
            ("https://169.254.169.254/latest/meta-data", RefusedAddress::LinkLocal),
            ("https://100.64.0.1/", RefusedAddress::SharedAddressSpace),
            ("https://0.0.0.0/", RefusedAddress::Unspecified),
            ("https://[::1]/", RefusedAddress::Loopback),
            ("https://[::ffff:127.0.0.1]/", RefusedAddress::EmbeddedIpv4),
            ("https://[::ffff:169.254.169.254]/", RefusedAddress::EmbeddedIpv4),
            ("https://[fd00::1]/", RefusedAddress::Private),
            ("https://[fe80::1]/", RefusedAddress::LinkLocal),
            ("https://224.0.0.1/", RefusedAddress::Multicast),
            ("https://255.255.255.255/", RefusedAddress::Broadcast),
            // What the attack on issue 50 registered in `serve`.
            ("https://[::127.0.0.1]/", RefusedAddress::EmbeddedIpv4),
            ("https://[::a9fe:a9fe]/", RefusedAddress::EmbeddedIpv4),
            ("https://[::ffff:0:127.0.0.1]/", RefusedAddress::EmbeddedIpv4),
            ("https://[2002:7f00:1::1]/", RefusedAddress::EmbeddedIpv4),
            ("https://[64:ff9b:1::7f00:1]/", RefusedAddress::EmbeddedIpv4),
            ("https://[2001::]/", RefusedAddress::EmbeddedIpv4),
            ("https://[100::1]/", RefusedAddress::SpecialPurpose),
            ("https://198.18.0.1/", RefusedAddress::Benchmarking),
            ("https://192.0.0.1/", RefusedAddress::SpecialPurpose),
            ("https://192.0.2.1/", RefusedAddress::Documentation),
            ("https://198.51.100.1/", RefusedAddress::Documentation),
            ("https://203.0.113.1/", RefusedAddress::Documentation),
        ] {
            let refused = rules(command(url).check(serve));
            assert!(
                matches!(refused.as_slice(), [Rule::AddressRefused { kind: k, .. }] if *k == kind),
                "{url}: {refused:?}"
            );
        }
    }

    #[test]
    fn demo_takes_http_and_loopback() {
        for url in ["http://127.0.0.1:3000/hooks", "http://localhost/hooks", "http://[::1]/"] {
            assert!(command(url).check(UrlPolicy::DEMO).is_ok(), "{url}");
        }
    }

    #[test]
    fn a_refusal_names_the_host_as_written() {
        for (url, host) in [
            ("https://[::ffff:a00:1]/", "::ffff:10.0.0.1"),
            ("https://10.0.0.1/", "10.0.0.1"),
            ("https://sub.LOCALHOST./", "sub.localhost"),
        ] {
            let refused = rules(command(url).check(UrlPolicy::default()));
            assert!(
                matches!(refused.as_slice(), [Rule::AddressRefused { address, .. }] if address == host),
                "{url}: {refused:?}"
            );
        }
    }

    #[test]
    fn attempts_to_one_endpoint_take_slots_an_interval_apart() {
        let interval = attempt_interval(MAX_ATTEMPTS_PER_SECOND);
        assert_eq!(interval, Duration::from_millis(40));
        assert_eq!(attempt_interval(0), Duration::from_secs(1));
        assert_eq!(next_slot(None, 1_000, interval), 1_000);
        assert_eq!(next_slot(Some(1_000), 1_000, interval), 1_040);
        assert_eq!(next_slot(Some(1_040), 1_010, interval), 1_080);
        assert_eq!(
            next_slot(Some(1_000), 5_000, interval),
            5_000,
            "an idle endpoint saves up no burst"
        );
        let mut last = None;
        let slots: Vec<i64> = (0..50)
            .map(|_| {
                let slot = next_slot(last, 0, interval);
                last = Some(slot);
                slot
            })
            .collect();
        let in_the_first_second = slots.iter().filter(|slot| **slot < 1_000).count();
        assert_eq!(u32::try_from(in_the_first_second), Ok(MAX_ATTEMPTS_PER_SECOND));
    }

    #[test]
    fn types_are_known_types_or_every_action_of_a_known_resource() {
        let mut endpoint = command("https://erp.example.com/");
        endpoint.types = vec!["work_order.created".into(), "plot.*".into()];
        assert!(endpoint.check(UrlPolicy::default()).is_ok());
        endpoint.types = vec!["work_order.exploded".into(), "nothing.*".into()];
        assert_eq!(
            rules(endpoint.check(UrlPolicy::default())),
            [
                Rule::UnknownEventType("work_order.exploded".into()),
                Rule::UnknownEventType("nothing.*".into())
            ]
        );
        endpoint.types = vec!["".into(), "plot.created,plot.deleted".into()];
        assert_eq!(rules(endpoint.check(UrlPolicy::default())).len(), 2);
    }

    #[test]
    fn a_description_has_at_most_200_characters() {
        let mut endpoint = command("https://erp.example.com/");
        endpoint.description = Some("ñ".repeat(MAX_DESCRIPTION));
        assert!(endpoint.check(UrlPolicy::default()).is_ok());
        endpoint.description = Some("ñ".repeat(MAX_DESCRIPTION + 1));
        assert_eq!(
            rules(endpoint.check(UrlPolicy::default())),
            [Rule::TooLong(MAX_DESCRIPTION)]
        );
    }

    #[test]
    fn the_back_off_doubles_up_to_its_cap_under_full_jitter() {
        assert_eq!(retry_delay(1, 1.0), FIRST_RETRY_DELAY);
        assert_eq!(retry_delay(2, 1.0), FIRST_RETRY_DELAY * 2);
        assert_eq!(retry_delay(4, 1.0), FIRST_RETRY_DELAY * 8);
        assert_eq!(retry_delay(40, 1.0), MAX_RETRY_DELAY);
        assert_eq!(retry_delay(u32::MAX, 1.0), MAX_RETRY_DELAY);
        assert_eq!(retry_delay(4, 0.5), FIRST_RETRY_DELAY * 4);
        assert_eq!(retry_delay(40, 0.0), MIN_RETRY_DELAY);
        assert_eq!(retry_delay(40, 7.0), MAX_RETRY_DELAY);
    }

    #[test]
    fn an_endpoint_is_given_up_after_three_days_of_failures() {
        let day = 24 * 60 * 60 * 1000;
        assert!(!gives_up(0, 3 * day - 1));
        assert!(gives_up(0, 3 * day));
        assert!(delivered(204) && !delivered(301) && !delivered(500));
    }

    #[test]
    fn secrets_are_32_random_bytes_in_base64_after_whsec() {
        let secret = new_secret();
        let key = secret.strip_prefix(SECRET_PREFIX).expect("the prefix");
        let bytes = base64::engine::general_purpose::STANDARD.decode(key).expect("base64");
        assert_eq!(bytes.len(), 32);
        assert_ne!(secret, new_secret());
    }
}
