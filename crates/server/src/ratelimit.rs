//! Rate limits per bearer token and per client address, and who the client is (its socket address, or the address a
//! trusted proxy forwarded).
//!
//! Each limit is a GCRA bucket (`governor`): `burst` requests at once, then one more every `replenish`. The buckets
//! live in this process's memory: behind a balancer with N processes a client may reach N times a limit. Keys are
//! the client address (an IPv6 client by its /64, the block one host usually holds) and a keyed hash of the bearer
//! token, checked without a database lookup, so an invalid token is limited like a valid one. A bucket that is full
//! again is indistinguishable from a new one, so once a map holds more than `max_keys` such buckets are dropped.
//!
//! Every answer carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-10) for the limits
//! that applied; a refused request is answered 429 in the envelope with `Retry-After`.

use std::fmt;
use std::hash::{BuildHasher, Hash, RandomState};
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
pub use ipnet::IpNet;

use crate::error::ApiError;
use crate::extract::{bearer_token, ClientAddress};
use crate::i18n::Msg;
use crate::AppState;

/// Requests a second per token, unless configured otherwise.
pub const DEFAULT_TOKEN_RATE: u32 = 1000;
/// Requests at once per token, unless configured otherwise.
pub const DEFAULT_TOKEN_BURST: u32 = 2000;
/// Requests a second per client address, unless configured otherwise.
pub const DEFAULT_ADDRESS_RATE: u32 = 2000;
/// Requests at once per client address, unless configured otherwise.
pub const DEFAULT_ADDRESS_BURST: u32 = 4000;
/// Buckets a limit keeps before it drops the idle ones.
pub const DEFAULT_MAX_KEYS: usize = 100_000;

/// Checks between two looks at the maps' sizes (a power of two): a look counts every shard, too dear for every
/// request.
const SWEEP_EVERY: usize = 1024;

const RATELIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
const RATELIMIT: HeaderName = HeaderName::from_static("ratelimit");
const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// A bucket's size and refill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    /// Requests accepted at once from a full bucket.
    pub burst: u32,
    /// Time after which the bucket holds one more request.
    pub replenish: Duration,
}

impl Rate {
    /// `per_second` requests a second with bursts of `burst` (0: as many as `per_second`); no limit when
    /// `per_second` is 0.
    pub fn per_second(per_second: u32, burst: u32) -> Option<Self> {
        (per_second > 0).then(|| Rate {
            burst: if burst == 0 { per_second } else { burst },
            replenish: Duration::from_secs(1) / per_second,
        })
    }

    fn quota(self) -> Option<Quota> {
        Some(Quota::with_period(self.replenish)?.allow_burst(NonZeroU32::new(self.burst)?))
    }

    /// Seconds an empty bucket takes to fill: the policy's window.
    fn window(self) -> u64 {
        ceil_secs(self.replenish * self.burst)
    }

    /// Seconds until a bucket with `remaining` requests left is full again.
    fn reset(self, remaining: u32) -> u64 {
        ceil_secs(self.replenish * self.burst.saturating_sub(remaining))
    }
}

/// Which limits apply, and whom to believe about the client's address.
#[derive(Debug, Clone)]
pub struct RateLimits {
    /// Per bearer token; `None` for no limit.
    pub per_token: Option<Rate>,
    /// Per client address; `None` for no limit.
    pub per_address: Option<Rate>,
    /// Peers whose `X-Forwarded-For` names the client; empty, the header is ignored.
    pub trusted_proxies: Vec<IpNet>,
    /// Buckets a limit keeps before it drops those that are full again.
    pub max_keys: usize,
}

impl Default for RateLimits {
    fn default() -> Self {
        Self {
            per_token: Rate::per_second(DEFAULT_TOKEN_RATE, DEFAULT_TOKEN_BURST),
            per_address: Rate::per_second(DEFAULT_ADDRESS_RATE, DEFAULT_ADDRESS_BURST),
            trusted_proxies: Vec::new(),
            max_keys: DEFAULT_MAX_KEYS,
        }
    }
}

/// A trusted proxy as a flag gives it: a network (`10.0.0.0/8`) or one address.
pub fn parse_network(text: &str) -> Result<IpNet, String> {
    let text = text.trim();
    text.parse::<IpNet>()
        .or_else(|_| text.parse::<IpAddr>().map(IpNet::from))
        .map_err(|_| format!("{text:?} is neither an IP address nor a network such as 10.0.0.0/8"))
}

type Limiter<K> = RateLimiter<K, DefaultKeyedStateStore<K>, DefaultClock, StateInformationMiddleware>;

/// One limit: its name in the headers, its rate, and its buckets.
struct Bucket<K: Hash + Eq + Clone> {
    name: &'static str,
    rate: Rate,
    limiter: Limiter<K>,
}

/// What one limit said about a request.
struct Reading {
    name: &'static str,
    rate: Rate,
    remaining: u32,
}

impl<K: Hash + Eq + Clone> Bucket<K> {
    fn new(name: &'static str, rate: Option<Rate>) -> Option<Self> {
        let rate = rate?;
        let limiter = RateLimiter::dashmap(rate.quota()?).with_middleware::<StateInformationMiddleware>();
        Some(Self { name, rate, limiter })
    }

    /// Takes one request from `key`'s bucket; refused, how long until it would be accepted.
    fn take(&self, key: &K) -> (Reading, Option<Duration>) {
        let reading = |remaining| Reading {
            name: self.name,
            rate: self.rate,
            remaining,
        };
        match self.limiter.check_key(key) {
            Ok(snapshot) => (reading(snapshot.remaining_burst_capacity()), None),
            Err(refusal) => (reading(0), Some(refusal.wait_time_from(self.limiter.clock().now()))),
        }
    }

    fn sweep(&self, max_keys: usize) {
        if self.limiter.len() > max_keys {
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
    }
}

/// The limits of one server process.
pub struct Limiters {
    by_token: Option<Bucket<u64>>,
    by_address: Option<Bucket<IpAddr>>,
    trusted_proxies: Vec<IpNet>,
    max_keys: usize,
    token_hasher: RandomState,
    checks: AtomicUsize,
}

impl fmt::Debug for Limiters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Limiters")
            .field("per_token", &self.by_token.as_ref().map(|b| b.rate))
            .field("per_address", &self.by_address.as_ref().map(|b| b.rate))
            .field("trusted_proxies", &self.trusted_proxies)
            .finish_non_exhaustive()
    }
}

impl Limiters {
    /// Empty buckets for `limits`.
    pub fn new(limits: &RateLimits) -> Self {
        Self {
            by_token: Bucket::new("token", limits.per_token),
            by_address: Bucket::new("address", limits.per_address),
            trusted_proxies: limits.trusted_proxies.clone(),
            max_keys: limits.max_keys,
            token_hasher: RandomState::new(),
            checks: AtomicUsize::new(0),
        }
    }

    /// The client's address: the peer's, or when the peer is a trusted proxy, the last address in
    /// `X-Forwarded-For` that no trusted proxy added.
    fn client_address(&self, request: &Request) -> Option<IpAddr> {
        let ConnectInfo(peer) = request.extensions().get::<ConnectInfo<SocketAddr>>()?;
        let peer = peer.ip().to_canonical();
        if !self.trusts(peer) {
            return Some(peer);
        }
        let hops: Vec<&str> = request
            .headers()
            .get_all(X_FORWARDED_FOR)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .collect();
        let mut client = peer;
        for hop in hops.into_iter().rev() {
            // An entry that is not an address was not written by a proxy we trust: the hop before it is the client.
            let Some(address) = parse_hop(hop) else { break };
            client = address;
            if !self.trusts(address) {
                break;
            }
        }
        Some(client)
    }

    fn trusts(&self, address: IpAddr) -> bool {
        self.trusted_proxies.iter().any(|network| network.contains(&address))
    }

    /// Takes one request from each bucket that applies, the address's first; refused, how long until it would not be.
    fn take(&self, address: Option<IpAddr>, token: Option<&str>, readings: &mut Vec<Reading>) -> Option<Duration> {
        if self.checks.fetch_add(1, Ordering::Relaxed) & (SWEEP_EVERY - 1) == 0 {
            if let Some(bucket) = &self.by_token {
                bucket.sweep(self.max_keys);
            }
            if let Some(bucket) = &self.by_address {
                bucket.sweep(self.max_keys);
            }
        }
        if let (Some(bucket), Some(address)) = (&self.by_address, address) {
            let (reading, refused) = bucket.take(&address_key(address));
            readings.push(reading);
            if refused.is_some() {
                return refused;
            }
        }
        if let (Some(bucket), Some(token)) = (&self.by_token, token) {
            let (reading, refused) = bucket.take(&self.token_hasher.hash_one(token));
            readings.push(reading);
            return refused;
        }
        None
    }
}

/// Applies the limits, answers 429 past them, and tells the client where it stands on every answer.
pub async fn limit(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let limiters = &state.limiters;
    let address = limiters.client_address(&request);
    if let Some(address) = address {
        request.extensions_mut().insert(ClientAddress(address.to_string()));
    }
    let mut readings = Vec::with_capacity(2);
    let refused = limiters.take(address, bearer_token(request.headers()), &mut readings);
    let mut response = match refused {
        Some(wait) => {
            // The refusing bucket is the last one read.
            if let Some(reading) = readings.last() {
                metrics::counter!(crate::metrics::RATE_LIMITED, "limit" => reading.name).increment(1);
            }
            let seconds = ceil_secs(wait).max(1);
            ApiError::too_many_requests(Msg::RateLimited(seconds), Duration::from_secs(seconds)).into_response()
        }
        None => next.run(request).await,
    };
    describe(response.headers_mut(), &readings);
    response
}

fn describe(headers: &mut HeaderMap, readings: &[Reading]) {
    if readings.is_empty() {
        return;
    }
    let policies: Vec<String> = readings
        .iter()
        .map(|r| format!("\"{}\";q={};w={}", r.name, r.rate.burst, r.rate.window()))
        .collect();
    let states: Vec<String> = readings
        .iter()
        .map(|r| format!("\"{}\";r={};t={}", r.name, r.remaining, r.rate.reset(r.remaining)))
        .collect();
    for (name, value) in [(RATELIMIT_POLICY, policies), (RATELIMIT, states)] {
        if let Ok(value) = HeaderValue::from_str(&value.join(", ")) {
            headers.insert(name, value);
        }
    }
}

/// An entry of `X-Forwarded-For`: an address, possibly with a port, IPv6 possibly in brackets.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    hop.parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|address| address.ip()))
        .or_else(|| hop.strip_prefix('[')?.strip_suffix(']')?.parse().ok())
        .map(|address| address.to_canonical())
}

/// The bucket an address counts against: IPv4 by address, IPv6 by /64.
fn address_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !u128::from(u64::MAX))),
    }
}

fn ceil_secs(duration: Duration) -> u64 {
    duration.as_secs() + u64::from(duration.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request_from(peer: &str, forwarded: &[&str]) -> Request {
        let mut request = Request::new(axum::body::Body::empty());
        let peer: SocketAddr = peer.parse().expect("a socket address");
        request.extensions_mut().insert(ConnectInfo(peer));
        for value in forwarded {
            request
                .headers_mut()
                .append(X_FORWARDED_FOR, HeaderValue::from_str(value).expect("a header value"));
        }
        request
    }

    fn limiters(trusted: &[&str]) -> Limiters {
        Limiters::new(&RateLimits {
            trusted_proxies: trusted.iter().map(|n| parse_network(n).expect("a network")).collect(),
            ..RateLimits::default()
        })
    }

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().expect("an address"))
    }

    #[test]
    fn forwarded_addresses_count_only_from_trusted_proxies() {
        let untrusting = limiters(&[]);
        let request = request_from("198.51.100.9:4000", &["203.0.113.7"]);
        assert_eq!(untrusting.client_address(&request), ip("198.51.100.9"));

        let trusting = limiters(&["10.0.0.0/8", "192.0.2.1"]);
        let through_two = request_from("10.1.1.1:4000", &["203.0.113.7, 198.51.100.1", "192.0.2.1"]);
        assert_eq!(
            trusting.client_address(&through_two),
            ip("198.51.100.1"),
            "the last untrusted hop"
        );
        let spoofed = request_from("198.51.100.9:4000", &["10.9.9.9"]);
        assert_eq!(
            trusting.client_address(&spoofed),
            ip("198.51.100.9"),
            "an untrusted peer's header is ignored"
        );
        let garbage = request_from("10.1.1.1:4000", &["203.0.113.7, not-an-address"]);
        assert_eq!(trusting.client_address(&garbage), ip("10.1.1.1"));
        let with_ports = request_from("10.1.1.1:4000", &["[2001:db8::1]:443"]);
        assert_eq!(trusting.client_address(&with_ports), ip("2001:db8::1"));
        let only_proxies = request_from("10.1.1.1:4000", &["10.2.2.2"]);
        assert_eq!(trusting.client_address(&only_proxies), ip("10.2.2.2"));
        let mapped = request_from("[::ffff:198.51.100.9]:4000", &[]);
        assert_eq!(untrusting.client_address(&mapped), ip("198.51.100.9"));
    }

    #[test]
    fn an_ipv6_client_counts_by_its_64_block() {
        let a = address_key("2001:db8:1:2:aaaa::1".parse().expect("an address"));
        let b = address_key("2001:db8:1:2:bbbb::2".parse().expect("an address"));
        let other = address_key("2001:db8:1:3::1".parse().expect("an address"));
        assert_eq!(a, b);
        assert_ne!(a, other);
        let v4: IpAddr = "198.51.100.9".parse().expect("an address");
        assert_eq!(address_key(v4), v4);
    }

    #[test]
    fn rates_describe_their_window_and_reset() {
        let rate = Rate::per_second(100, 250).expect("a limit");
        assert_eq!(
            (rate.window(), rate.reset(250), rate.reset(0), rate.reset(249)),
            (3, 0, 3, 1)
        );
        assert_eq!(Rate::per_second(0, 10), None);
        assert_eq!(Rate::per_second(5, 0).map(|r| r.burst), Some(5));
        assert!(parse_network("10.0.0.0/8").is_ok() && parse_network("::1").is_ok());
        assert!(parse_network("ten").is_err());
    }

    #[test]
    fn idle_buckets_are_dropped_past_the_bound() {
        let bucket: Bucket<u32> = Bucket::new("token", Rate::per_second(1_000_000, 1)).expect("a limit");
        for key in 0..100 {
            bucket.take(&key);
        }
        std::thread::sleep(Duration::from_millis(5));
        bucket.sweep(10);
        assert!(bucket.limiter.len() < 100, "{} buckets kept", bucket.limiter.len());
    }
}
