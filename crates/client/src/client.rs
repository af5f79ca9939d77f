//! The client: its configuration, one request with its retries and its token, and list streams over pages.

use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{self, BoxStream};
use futures_util::{StreamExt, TryStreamExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, ACCEPT_LANGUAGE, CONTENT_TYPE, ETAG};
use reqwest::{Method, StatusCode, Url};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::sync::Mutex;
use wire::Page;

use crate::auth::Session;
use crate::filters::{Filters, Generation};
use crate::retry::{retry_wait, RetryPolicy};
use crate::Error;

/// The items of a list, over all its pages, in the API's order (ascending id).
pub type Items<T> = BoxStream<'static, Result<T, Error>>;

/// The pages of a list, as the API answers them.
pub type Pages<T> = BoxStream<'static, Result<Page<T>, Error>>;

/// A record with the `ETag` the API sent with it: the version an `If-Match` may name (work orders).
#[derive(Debug, Clone, PartialEq)]
pub struct Tagged<T> {
    /// The record.
    pub value: T,
    /// The `ETag` header as sent, quotes included (`"12-3"`); `None` when the answer had none.
    pub etag: Option<String>,
}

/// A client of the integration API. Cheap to clone: clones share the connection pool and the session.
///
/// ```no_run
/// # async fn run() -> Result<(), client::Error> {
/// let api = client::Client::builder("https://api.example.com").build()?;
/// api.login("integrador@lapampa.com.ar", "LaPampa-2026").await?;
/// let establishment = api.establishment(1).await?;
/// println!("{}", establishment.name);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

#[derive(Debug)]
pub(crate) struct Inner {
    http: reqwest::Client,
    base: String,
    system_id_header: HeaderName,
    system_id: HeaderValue,
    pub(crate) api_key_header: HeaderName,
    accept_language: Option<HeaderValue>,
    timeout: Duration,
    retry: RetryPolicy,
    pub(crate) refresh_margin: Duration,
    pub(crate) session: Mutex<Option<Session>>,
}

/// Configures a [`Client`]; see [`Client::builder`].
#[derive(Debug, Clone)]
pub struct ClientBuilder {
    base_url: String,
    system_id: String,
    header_token: String,
    timeout: Duration,
    retry: RetryPolicy,
    accept_language: Option<String>,
    refresh_margin: Duration,
    http: Option<reqwest::Client>,
}

impl Client {
    /// Starts configuring a client of the API at `base_url` (scheme and host, and a path prefix if the API sits
    /// under one), e.g. `http://127.0.0.1:8080` for the sandbox.
    ///
    /// ```no_run
    /// use std::time::Duration;
    ///
    /// # fn run() -> Result<(), client::Error> {
    /// let api = client::Client::builder("https://api.example.com")
    ///     .header_token("SVC")
    ///     .system_id("8")
    ///     .timeout(Duration::from_secs(20))
    ///     .retry_policy(client::RetryPolicy::default())
    ///     .accept_language("en")
    ///     .build()?;
    /// # let _ = api;
    /// # Ok(())
    /// # }
    /// ```
    pub fn builder(base_url: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.into(),
            system_id: "8".to_owned(),
            header_token: "SVC".to_owned(),
            timeout: Duration::from_secs(30),
            retry: RetryPolicy::default(),
            accept_language: None,
            refresh_margin: Duration::from_secs(60),
            http: None,
        }
    }
}

impl ClientBuilder {
    /// The value of the system-id header; `8`, the third-party integrator system, unless changed.
    pub fn system_id(mut self, system_id: impl Into<String>) -> Self {
        self.system_id = system_id.into();
        self
    }

    /// The token in the header names: `SVC` gives `X-SVC-SYSTEM-ID` and `X-SVC-APIKEY`. The real platform uses its
    /// maker's name here.
    pub fn header_token(mut self, token: impl Into<String>) -> Self {
        self.header_token = token.into();
        self
    }

    /// How long one attempt of a request may take, answer included; 30 s unless changed.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// When and how often failed requests are retried; [`RetryPolicy::default`] unless changed.
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// The `Accept-Language` sent with every call (`es`, `pt`, `en`…), which picks the language of error messages.
    pub fn accept_language(mut self, language: impl Into<String>) -> Self {
        self.accept_language = Some(language.into());
        self
    }

    /// How long before `expiration_datetime` the access token is refreshed; 60 s unless changed, and at most half
    /// the token's lifetime.
    pub fn refresh_margin(mut self, margin: Duration) -> Self {
        self.refresh_margin = margin;
        self
    }

    /// A `reqwest::Client` of your own (proxies, extra root certificates, pool settings). The time-out of this
    /// builder still applies to each attempt.
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = Some(http);
        self
    }

    /// Builds the client; [`Error::Config`] when a setting cannot work.
    pub fn build(self) -> Result<Client, Error> {
        let base = self.base_url.trim_end_matches('/').to_owned();
        Url::parse(&base).map_err(|e| Error::Config(format!("base URL {base:?}: {e}")))?;
        let header = |suffix: &str| {
            let name = format!("x-{}-{suffix}", self.header_token.to_ascii_lowercase());
            HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| Error::Config(format!("header token {:?}", self.header_token)))
        };
        let system_id = HeaderValue::from_str(&self.system_id)
            .map_err(|_| Error::Config(format!("system id {:?}", self.system_id)))?;
        let accept_language = self
            .accept_language
            .map(|language| {
                HeaderValue::from_str(&language).map_err(|_| Error::Config(format!("Accept-Language {language:?}")))
            })
            .transpose()?;
        let http = match self.http {
            Some(http) => http,
            None => reqwest::Client::builder()
                .user_agent(concat!("tranquera-client/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| Error::Config(format!("HTTP client: {e}")))?,
        };
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                base,
                system_id_header: header("system-id")?,
                system_id,
                api_key_header: header("apikey")?,
                accept_language,
                timeout: self.timeout,
                retry: self.retry,
                refresh_margin: self.refresh_margin,
                session: Mutex::new(None),
            }),
        })
    }
}

/// One request, ready to be sent as many times as its retries need.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    method: Method,
    path: String,
    query: Vec<(&'static str, String)>,
    /// Serialized once, so every attempt sends the same bytes (the idempotency key is bound to them).
    body: Option<Vec<u8>>,
    headers: Vec<(HeaderName, HeaderValue)>,
    /// A POST that may be repeated: it carries an idempotency key, or it creates nothing (login, refresh).
    repeatable_post: bool,
}

impl Call {
    pub(crate) fn new(method: Method, path: impl Into<String>) -> Self {
        Self {
            method,
            path: path.into(),
            query: Vec::new(),
            body: None,
            headers: Vec::new(),
            repeatable_post: false,
        }
    }

    pub(crate) fn query(mut self, pairs: Vec<(&'static str, String)>) -> Self {
        self.query.extend(pairs);
        self
    }

    pub(crate) fn json<B: Serialize + ?Sized>(mut self, body: &B) -> Result<Self, Error> {
        let bytes = serde_json::to_vec(body).map_err(|e| Error::Decode {
            path: self.path.clone(),
            reason: format!("the request body does not serialize: {e}"),
        })?;
        self.body = Some(bytes);
        Ok(self)
    }

    pub(crate) fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    /// Marks a POST safe to repeat because it creates nothing.
    pub(crate) fn retry_post(mut self) -> Self {
        self.repeatable_post = true;
        self
    }

    /// A create: a fresh `Idempotency-Key`, so the server answers a retry with the first answer instead of creating
    /// again.
    pub(crate) fn idempotent(self) -> Self {
        let key = uuid::Uuid::new_v4().to_string();
        match HeaderValue::from_str(&key) {
            Ok(value) => {
                let mut call = self.header(HeaderName::from_static("idempotency-key"), value);
                call.repeatable_post = true;
                call
            }
            // A UUID is always a valid header value; without a key the call is simply not retried.
            Err(_) => self,
        }
    }

    fn repeatable(&self) -> bool {
        self.method != Method::POST || self.repeatable_post
    }
}

/// A successful answer.
#[derive(Debug)]
pub(crate) struct Answer {
    path: String,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    pub(crate) fn decode<T: DeserializeOwned>(&self) -> Result<T, Error> {
        serde_json::from_slice(&self.body).map_err(|e| Error::Decode {
            path: self.path.clone(),
            reason: e.to_string(),
        })
    }

    pub(crate) fn tagged<T: DeserializeOwned>(&self) -> Result<Tagged<T>, Error> {
        Ok(Tagged {
            value: self.decode()?,
            etag: self.headers.get(ETAG).and_then(|v| v.to_str().ok()).map(str::to_owned),
        })
    }
}

impl Client {
    /// Sends an authenticated call: with the current access token (refreshed first when about to expire), and once
    /// more with a refreshed token when the server answers 401.
    pub(crate) async fn execute(&self, call: &Call) -> Result<Answer, Error> {
        let token = self.bearer(None).await?;
        match self.transmit(call, Some(&token)).await {
            Err(Error::Api { status, .. }) if status == StatusCode::UNAUTHORIZED => {
                // The token may have been revoked, or the clocks disagree about its expiry: one refresh, one retry.
                tracing::debug!(path = %call.path, "401: refreshing the access token and retrying once");
                let fresh = self.bearer(Some(&token)).await?;
                self.transmit(call, Some(&fresh)).await
            }
            other => other,
        }
    }

    /// Sends a call with `token`, retrying as the policy allows; an error status becomes [`Error::Api`].
    pub(crate) async fn transmit(&self, call: &Call, token: Option<&str>) -> Result<Answer, Error> {
        let inner = &self.inner;
        let mut url = Url::parse(&format!("{}{}", inner.base, call.path))
            .map_err(|e| Error::Config(format!("URL of {}: {e}", call.path)))?;
        if !call.query.is_empty() {
            // Form-encoding turns the `+` of a positive offset into `%2B`, which the API reads back as `+`.
            url.query_pairs_mut()
                .extend_pairs(call.query.iter().map(|(k, v)| (*k, v.as_str())));
        }
        let repeatable = call.repeatable();
        let mut attempt = 1;
        loop {
            let outcome = self.attempt(call, url.clone(), token).await;
            let retry_in = match &outcome {
                Err(_) => Some(inner.retry.backoff(attempt)),
                Ok((status, headers, _)) => retry_wait(*status, headers, inner.retry.backoff(attempt)),
            };
            match retry_in {
                Some(wait) if repeatable && attempt < inner.retry.max_attempts && wait <= inner.retry.max_backoff => {
                    tracing::warn!(method = %call.method, path = %call.path, attempt, wait_ms = wait.as_millis() as u64, "retrying");
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                _ => {
                    let (status, headers, body) = outcome.map_err(Error::from_transport)?;
                    tracing::debug!(method = %call.method, path = %call.path, %status, "answered");
                    if status.is_success() {
                        return Ok(Answer {
                            path: call.path.clone(),
                            headers,
                            body,
                        });
                    }
                    return Err(Error::from_answer(status, &body));
                }
            }
        }
    }

    /// One attempt: the request sent and its whole answer read, or the transport error on the way.
    async fn attempt(
        &self,
        call: &Call,
        url: Url,
        token: Option<&str>,
    ) -> Result<(StatusCode, HeaderMap, Vec<u8>), reqwest::Error> {
        let inner = &self.inner;
        let mut request = inner
            .http
            .request(call.method.clone(), url)
            .timeout(inner.timeout)
            .header(inner.system_id_header.clone(), inner.system_id.clone())
            .header(ACCEPT, "application/json");
        if let Some(language) = &inner.accept_language {
            request = request.header(ACCEPT_LANGUAGE, language.clone());
        }
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        for (name, value) in &call.headers {
            request = request.header(name.clone(), value.clone());
        }
        if let Some(body) = &call.body {
            request = request.header(CONTENT_TYPE, "application/json").body(body.clone());
        }
        let response = request.send().await?;
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.bytes().await?.to_vec();
        Ok((status, headers, body))
    }

    /// Every page of the list at `path`, following `next_page` from page 1. It stops at a null `next_page`, and also
    /// at one that does not move forward, as a server configured to repeat the last page's number answers.
    ///
    /// ```no_run
    /// use futures_util::TryStreamExt;
    /// use client::{Filters, Generation};
    ///
    /// # async fn run(api: client::Client) -> Result<(), client::Error> {
    /// let mut pages = api.pages::<serde_json::Value>(Generation::V3, "/api/v3/third_party/units", &Filters::new());
    /// while let Some(page) = pages.try_next().await? {
    ///     println!("page {} of {}", page.current_page, page.total_pages);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn pages<T: DeserializeOwned + Send + 'static>(
        &self,
        generation: Generation,
        path: &str,
        filters: &Filters,
    ) -> Pages<T> {
        self.pages_with(path, filters.query(generation))
    }

    /// Every item of the list at `path` over all its pages; see [`Client::pages`]. The typed list methods
    /// ([`Client::establishments`] and the rest) call this.
    ///
    /// ```no_run
    /// use futures_util::TryStreamExt;
    /// use client::{Filters, Generation};
    ///
    /// # async fn run(api: client::Client) -> Result<(), client::Error> {
    /// let units: Vec<serde_json::Value> =
    ///     api.list(Generation::V3, "/api/v3/third_party/units", &Filters::new()).try_collect().await?;
    /// # let _ = units;
    /// # Ok(())
    /// # }
    /// ```
    pub fn list<T: DeserializeOwned + Send + 'static>(
        &self,
        generation: Generation,
        path: &str,
        filters: &Filters,
    ) -> Items<T> {
        items(self.pages(generation, path, filters))
    }

    pub(crate) fn pages_with<T: DeserializeOwned + Send + 'static>(
        &self,
        path: &str,
        query: Vec<(&'static str, String)>,
    ) -> Pages<T> {
        let client = self.clone();
        let path = path.to_owned();
        stream::try_unfold(Some(1u64), move |next| {
            let client = client.clone();
            let call = Call::new(Method::GET, path.clone()).query(query.clone());
            async move {
                let Some(number) = next else {
                    return Ok(None);
                };
                let call = call.query(vec![("page", number.to_string())]);
                let page: Page<T> = client.execute(&call).await?.decode()?;
                let next = page.next_page.filter(|&following| following > number);
                Ok(Some((page, next)))
            }
        })
        .boxed()
    }

    /// An authenticated `GET` of any path with any query, decoded as `T`: the escape hatch for what the typed
    /// methods do not cover (a given page, a parameter a newer server accepts). Retries, refresh and error decoding
    /// apply as everywhere.
    ///
    /// ```no_run
    /// # async fn run(api: client::Client) -> Result<(), client::Error> {
    /// let page: client::wire::Page<serde_json::Value> =
    ///     api.get("/api/v3/third_party/applicators", vec![("page", "2".into())]).await?;
    /// # let _ = page;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get<T: DeserializeOwned>(&self, path: &str, query: Vec<(&'static str, String)>) -> Result<T, Error> {
        self.execute(&Call::new(Method::GET, path).query(query)).await?.decode()
    }

    /// `GET <path>/{id}`: one record.
    pub(crate) async fn detail<T: DeserializeOwned>(&self, path: &str, id: i64) -> Result<T, Error> {
        self.execute(&Call::new(Method::GET, format!("{path}/{id}")))
            .await?
            .decode()
    }
}

/// The items of a stream of pages, in order.
pub(crate) fn items<T: Send + 'static>(pages: Pages<T>) -> Items<T> {
    pages
        .map_ok(|page| stream::iter(page.items.into_iter().map(Ok::<T, Error>)))
        .try_flatten()
        .boxed()
}
