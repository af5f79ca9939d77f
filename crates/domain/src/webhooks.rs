//! Webhook endpoints and their deliveries: the rules of an endpoint's URL (the server-side request forgery rules),
//! which addresses a delivery may never reach, the retry schedule, when a failing endpoint is given up, and the
//! format of signing secrets.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use base64::Engine;
use ipnet::{Ipv4Net, Ipv6Net};
use rand::RngCore;
use url::{Host, Url};

use crate::events::EventTypes;
use crate::refusal::{verdict, Refusal, Rule, Violation};

/// Longest description an endpoint may have, in characters.
pub const MAX_DESCRIPTION: usize = 200;
/// Longest URL an endpoint may have, in bytes.
pub const MAX_URL: usize = 2048;
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

/// Why an address is not one a delivery may reach: every kind of address inside a network or a host, where a
/// request would reach what the public cannot (OWASP API7, server-side request forgery).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusedAddress {
    /// This host: 127.0.0.0/8, ::1, `localhost`.
    Loopback,
    /// A private network: RFC 1918 (10/8, 172.16/12, 192.168/16), IPv6 unique local (fc00::/7) and site-local.
    Private,
    /// Link-local: 169.254.0.0/16 (where cloud metadata services answer, 169.254.169.254) and fe80::/10.
    LinkLocal,
    /// The carrier-grade NAT range shared by a provider's customers, 100.64.0.0/10.
    SharedAddressSpace,
    /// No address: 0.0.0.0/8 and ::.
    Unspecified,
    /// Multicast: 224.0.0.0/4 and ff00::/8.
    Multicast,
    /// The broadcast address 255.255.255.255, and the reserved 240.0.0.0/4 around it.
    Broadcast,
}

/// Why `address` may not be delivered to, if it may not. An IPv4 address written as IPv6 (`::ffff:10.0.0.1`, or
/// NAT64's `64:ff9b::/96`) is judged as the IPv4 address it reaches.
pub fn refused_address(address: IpAddr) -> Option<RefusedAddress> {
    match address {
        IpAddr::V4(v4) => refused_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => refused_v4(v4),
            None => refused_v6(v6),
        },
    }
}

fn refused_v4(address: Ipv4Addr) -> Option<RefusedAddress> {
    let shared = Ipv4Net::new(Ipv4Addr::new(100, 64, 0, 0), 10).is_ok_and(|net| net.contains(&address));
    let this_network = address.octets()[0] == 0;
    let reserved = address.octets()[0] >= 240;
    if address.is_loopback() {
        Some(RefusedAddress::Loopback)
    } else if address.is_private() {
        Some(RefusedAddress::Private)
    } else if address.is_link_local() {
        Some(RefusedAddress::LinkLocal)
    } else if shared {
        Some(RefusedAddress::SharedAddressSpace)
    } else if address.is_unspecified() || this_network {
        Some(RefusedAddress::Unspecified)
    } else if address.is_multicast() {
        Some(RefusedAddress::Multicast)
    } else if address.is_broadcast() || reserved {
        Some(RefusedAddress::Broadcast)
    } else {
        None
    }
}

fn refused_v6(address: Ipv6Addr) -> Option<RefusedAddress> {
    let within = |prefix: &str| prefix.parse::<Ipv6Net>().is_ok_and(|net| net.contains(&address));
    if address.is_loopback() {
        Some(RefusedAddress::Loopback)
    } else if address.is_unspecified() {
        Some(RefusedAddress::Unspecified)
    } else if address.is_multicast() {
        Some(RefusedAddress::Multicast)
    } else if within("fc00::/7") || within("fec0::/10") {
        Some(RefusedAddress::Private)
    } else if within("fe80::/10") {
        Some(RefusedAddress::LinkLocal)
    } else {
        None
    }
}

/// The IPv4 address an IPv6 address reaches, when it embeds one: IPv4-mapped (`::ffff:a.b.c.d`) or NAT64
/// (`64:ff9b::a.b.c.d`).
fn embedded_v4(address: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = address.to_ipv4_mapped() {
        return Some(v4);
    }
    let segments = address.segments();
    let nat64 = segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0];
    nat64.then(|| {
        let [.., high, low] = segments;
        let [a, b] = high.to_be_bytes();
        let [c, d] = low.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    })
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
        assert!(command("https://203.0.113.9:8443/hooks").check(serve).is_ok());
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
            ("https://[::ffff:127.0.0.1]/", RefusedAddress::Loopback),
            ("https://[::ffff:169.254.169.254]/", RefusedAddress::LinkLocal),
            ("https://[fd00::1]/", RefusedAddress::Private),
            ("https://[fe80::1]/", RefusedAddress::LinkLocal),
            ("https://224.0.0.1/", RefusedAddress::Multicast),
            ("https://255.255.255.255/", RefusedAddress::Broadcast),
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
    fn an_embedded_ipv4_address_is_judged_as_itself() {
        assert_eq!(
            refused_address("64:ff9b::a00:1".parse().expect("an address")),
            Some(RefusedAddress::Private)
        );
        assert_eq!(refused_address("64:ff9b::cb00:7109".parse().expect("an address")), None);
        assert_eq!(refused_address("2001:db8::1".parse().expect("an address")), None);
        assert_eq!(refused_address("8.8.8.8".parse().expect("an address")), None);
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
