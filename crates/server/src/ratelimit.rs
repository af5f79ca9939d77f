//! Rate limits per bearer token and per client address, counted across every server process on the database, and
//! who the client is (its socket address, or the address a trusted proxy forwarded).
//!
//! Each limit is a GCRA bucket per key: `burst` requests at once, then one more every `replenish`. A bucket is its
//! theoretical arrival time (TAT): the moment it would be full again. Each process decides in memory, with no
//! database round trip on a request, and every [`SHARE_EVERY`] adds what it accepted to the buckets in the database
//! (`Store::charge_rate_limit`), which answer with every process's requests counted; the process's own bucket then
//! moves to that TAT. A client spread over N processes therefore gets the configured rate in total: between two
//! shares each process may accept what its own bucket allows, and the next share puts the excess on the bucket as
//! debt, refused until it is paid. The overshoot is bounded by what N processes accept in one share's interval.
//!
//! Keys are the client address (an IPv6 client by its /64, the block one host usually holds), taken before anything
//! else, and a SHA-256 digest of the bearer token, taken once the token has authenticated ([`charge_token`]): a
//! token that does not authenticate counts against its address only, so made-up tokens make no buckets, here or in
//! the database. A bucket that is full again is the same as none, so each share forgets those it holds, and deletes
//! as many spent shared ones as it may have added (`Store::charge_rate_limit`): the shared table holds the buckets
//! of the last moments' clients, whatever the traffic.
//!
//! Every answer carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-10) for the limits
//! that applied; a refused request is answered 429 in the envelope with `Retry-After`.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{Extensions, HeaderMap, HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use dashmap::DashMap;
pub use ipnet::IpNet;
use sha2::{Digest, Sha256};
use store::Store;
use tokio::task::JoinHandle;

use crate::error::ApiError;
use crate::extract::ClientAddress;
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
/// How often a process adds what it accepted to the shared buckets, and learns what the others accepted.
pub const SHARE_EVERY: Duration = Duration::from_millis(250);

/// Keys a share sends in one statement.
const KEYS_PER_SHARE: usize = 500;

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

    /// Microseconds a request is worth: the bucket's refill per request.
    fn emission_us(self) -> i64 {
        i64::try_from(self.replenish.as_micros()).unwrap_or(i64::MAX).max(1)
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
}

impl Default for RateLimits {
    fn default() -> Self {
        Self {
            per_token: Rate::per_second(DEFAULT_TOKEN_RATE, DEFAULT_TOKEN_BURST),
            per_address: Rate::per_second(DEFAULT_ADDRESS_RATE, DEFAULT_ADDRESS_BURST),
            trusted_proxies: Vec::new(),
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

/// A key's bucket in this process.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// When the bucket is full again, in epoch microseconds, every process's requests counted up to the last share.
    tat: i64,
    /// Requests accepted here since the last share.
    unshared: u32,
}

/// One limit: its name in the headers and in the database, its rate, and its buckets.
struct Bucket<K: Hash + Eq + Clone> {
    name: &'static str,
    rate: Rate,
    /// Microseconds a request is worth ([`Rate::emission_us`]).
    emission: i64,
    /// How far ahead of now a bucket's TAT may be: the burst's worth of requests.
    capacity: i64,
    slots: DashMap<K, Slot>,
    /// The key as the shared bucket names it.
    shared_key: fn(&K) -> String,
}

/// What one limit said about a request.
#[derive(Debug, Clone, Copy)]
struct Reading {
    name: &'static str,
    rate: Rate,
    remaining: u32,
}

impl<K: Hash + Eq + Clone> Bucket<K> {
    fn new(name: &'static str, rate: Option<Rate>, shared_key: fn(&K) -> String) -> Option<Self> {
        let rate = rate?;
        let emission = rate.emission_us();
        Some(Self {
            name,
            rate,
            emission,
            capacity: emission.saturating_mul(i64::from(rate.burst)),
            slots: DashMap::new(),
            shared_key,
        })
    }

    /// Takes one request from `key`'s bucket at `now` (epoch microseconds); refused, how long until it would be
    /// accepted.
    fn take(&self, key: &K, now: i64) -> (Reading, Option<Duration>) {
        let (emission, capacity) = (self.emission, self.capacity);
        let mut slot = self.slots.entry(key.clone()).or_insert(Slot { tat: now, unshared: 0 });
        let after = slot.tat.max(now).saturating_add(emission);
        let reading = |remaining| Reading {
            name: self.name,
            rate: self.rate,
            remaining,
        };
        if after - now > capacity {
            let wait = u64::try_from(after - now - capacity).unwrap_or(0);
            return (reading(0), Some(Duration::from_micros(wait)));
        }
        slot.tat = after;
        slot.unshared = slot.unshared.saturating_add(1);
        let remaining = (capacity - (after - now)) / emission;
        (reading(u32::try_from(remaining).unwrap_or(u32::MAX)), None)
    }

    /// Adds what this process accepted since the last share to the shared buckets, and moves each of its buckets to
    /// the shared one's TAT, plus what it accepted meanwhile. Forgets the buckets that are full again.
    async fn share(&self, store: &Store, now: i64) -> Result<(), store::StoreError> {
        let mut accepted: Vec<(String, K, u32)> = Vec::new();
        for mut slot in self.slots.iter_mut() {
            if slot.unshared > 0 {
                accepted.push(((self.shared_key)(slot.key()), slot.key().clone(), slot.unshared));
                slot.unshared = 0;
            }
        }
        // One order for every process, so that two shares never wait on each other's rows in opposite orders.
        accepted.sort_by(|a, b| a.0.cmp(&b.0));
        let emission = self.emission;
        for (index, chunk) in accepted.chunks(KEYS_PER_SHARE).enumerate() {
            let charges: Vec<(String, u32)> = chunk.iter().map(|(shared, _, n)| (shared.clone(), *n)).collect();
            let shared = match store.charge_rate_limit(self.name, emission, now, &charges).await {
                Ok(shared) => shared,
                Err(error) => {
                    // Given back, this chunk's and the rest, to be shared next time: the database may be back then.
                    for (_, key, n) in &accepted[index * KEYS_PER_SHARE..] {
                        if let Some(mut slot) = self.slots.get_mut(key) {
                            slot.unshared = slot.unshared.saturating_add(*n);
                        }
                    }
                    return Err(error);
                }
            };
            let keys: HashMap<&str, &K> = chunk.iter().map(|(shared, key, _)| (shared.as_str(), key)).collect();
            for (shared_key, tat) in shared {
                let Some(key) = keys.get(shared_key.as_str()) else {
                    continue;
                };
                if let Some(mut slot) = self.slots.get_mut(*key) {
                    let own_since = emission.saturating_mul(i64::from(slot.unshared));
                    slot.tat = slot.tat.max(tat.saturating_add(own_since));
                }
            }
        }
        self.slots.retain(|_, slot| slot.tat > now || slot.unshared > 0);
        Ok(())
    }
}

/// The limits of one server process.
pub struct Limiters {
    by_token: Option<Bucket<[u8; 16]>>,
    by_address: Option<Bucket<IpAddr>>,
    trusted_proxies: Vec<IpNet>,
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
            by_token: Bucket::new("token", limits.per_token, |digest| store::hex(digest)),
            by_address: Bucket::new("address", limits.per_address, IpAddr::to_string),
            trusted_proxies: limits.trusted_proxies.clone(),
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

    /// Takes one request from the address's bucket, if that limit applies; refused, how long until it would not be.
    fn take_address(&self, address: Option<IpAddr>) -> Option<(Reading, Option<Duration>)> {
        let (bucket, address) = (self.by_address.as_ref()?, address?);
        Some(bucket.take(&address_key(address), now_us()))
    }

    /// Takes one request from the bucket of `token`, which has authenticated, if that limit applies.
    fn take_token(&self, token: &str) -> Option<(Reading, Option<Duration>)> {
        let bucket = self.by_token.as_ref()?;
        Some(bucket.take(&token_key(token), now_us()))
    }

    /// One share of both limits (see the module's documentation).
    pub async fn share(&self, store: &Store) -> Result<(), store::StoreError> {
        let now = now_us();
        if let Some(bucket) = &self.by_address {
            bucket.share(store, now).await?;
        }
        if let Some(bucket) = &self.by_token {
            bucket.share(store, now).await?;
        }
        Ok(())
    }
}

/// Shares the buckets every [`SHARE_EVERY`] until the returned task is aborted. A share that fails (the database is
/// away) keeps what it could not add for the next.
pub fn spawn_sharing(limiters: Arc<Limiters>, store: Store) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut shares = tokio::time::interval(SHARE_EVERY);
        shares.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            shares.tick().await;
            if let Err(error) = limiters.share(&store).await {
                tracing::warn!(%error, "the rate limits could not be shared with the other processes");
            }
        }
    })
}

/// Now, in epoch microseconds: the clock every process's buckets are on.
fn now_us() -> i64 {
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since_epoch.as_micros()).unwrap_or(i64::MAX)
}

/// The bucket a bearer token counts against: the first half of its SHA-256 digest, the same in every process.
fn token_key(token: &str) -> [u8; 16] {
    let digest = Sha256::digest(token.as_bytes());
    let mut key = [0; 16];
    key.copy_from_slice(&digest[..16]);
    key
}

/// A request's way to its token's bucket, for [`charge_token`]; what that bucket said, for the answer's headers.
#[derive(Clone)]
struct TokenLimit {
    limiters: Arc<Limiters>,
    reading: Arc<OnceLock<Reading>>,
}

/// Applies the address's limit, answers 429 past it (or past the token's, which [`charge_token`] takes), and tells
/// the client where it stands on every answer.
pub async fn limit(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let limiters = &state.limiters;
    let address = limiters.client_address(&request);
    if let Some(address) = address {
        request.extensions_mut().insert(ClientAddress(address.to_string()));
    }
    let mut readings = Vec::with_capacity(2);
    let refused = limiters.take_address(address).and_then(|(reading, refused)| {
        readings.push(reading);
        refused
    });
    let mut response = match refused {
        Some(wait) => refuse(&readings[0], wait).into_response(),
        None => {
            let token = TokenLimit {
                limiters: limiters.clone(),
                reading: Arc::default(),
            };
            request.extensions_mut().insert(token.clone());
            let response = next.run(request).await;
            readings.extend(token.reading.get().copied());
            response
        }
    };
    describe(response.headers_mut(), &readings);
    response
}

/// Takes one request from the bucket of `token`, which has just authenticated (a token that does not authenticate
/// gets no bucket); 429 past it. Outside [`limit`] (in a test of a handler alone) there is no limit to take.
pub fn charge_token(extensions: &Extensions, token: &str) -> Result<(), ApiError> {
    let Some(limit) = extensions.get::<TokenLimit>() else {
        return Ok(());
    };
    let Some((reading, refused)) = limit.limiters.take_token(token) else {
        return Ok(());
    };
    // A request authenticates once; should it twice, the first reading is the one its answer describes.
    let _ = limit.reading.set(reading);
    match refused {
        Some(wait) => Err(refuse(&reading, wait)),
        None => Ok(()),
    }
}

/// The 429 of a request `reading`'s bucket refused, for `wait`.
fn refuse(reading: &Reading, wait: Duration) -> ApiError {
    metrics::counter!(crate::metrics::RATE_LIMITED, "limit" => reading.name).increment(1);
    let seconds = ceil_secs(wait).max(1);
    ApiError::too_many_requests(Msg::RateLimited(seconds), Duration::from_secs(seconds))
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
    fn a_bucket_accepts_its_burst_then_one_request_a_replenish() {
        let bucket: Bucket<u32> = Bucket::new("token", Rate::per_second(10, 3), u32::to_string).expect("a limit");
        let start = 1_000_000_000;
        let accepted = (0..5).filter(|_| bucket.take(&1, start).1.is_none()).count();
        assert_eq!(accepted, 3, "the burst");
        assert_eq!(
            bucket.take(&1, start).1,
            Some(Duration::from_millis(100)),
            "the wait for the next"
        );
        assert!(
            bucket.take(&1, start + 100_000).1.is_none(),
            "one more after a replenish"
        );
        assert!(bucket.take(&1, start + 100_000).1.is_some(), "and only one");
        assert!(
            bucket.take(&2, start).1.is_none(),
            "another key has a bucket of its own"
        );
    }

    #[test]
    fn requests_another_process_accepted_are_refused_here_until_they_are_paid() {
        let bucket: Bucket<u32> = Bucket::new("token", Rate::per_second(10, 3), u32::to_string).expect("a limit");
        let start = 1_000_000_000;
        assert!(bucket.take(&1, start).1.is_none());
        // A share found 5 more requests of this key accepted elsewhere: the bucket is 300 ms in debt.
        if let Some(mut slot) = bucket.slots.get_mut(&1) {
            slot.tat = start + 600_000;
            slot.unshared = 0;
        }
        assert_eq!(bucket.take(&1, start).1, Some(Duration::from_millis(400)));
        assert!(bucket.take(&1, start + 400_000).1.is_none());
    }
}
