//! Every human-readable message the API sends, in Spanish (the platform's language), Portuguese and English.

mod body_hints;
pub mod import;
pub mod jobs;
pub mod reasons;
mod refusal;

use domain::filters::{DATE_EXAMPLE, DATE_PATTERN};
use domain::{FilterError, Lang, Refusal};

/// A message, before it is put into words.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// The system-id header is absent.
    MissingSystemId(String),
    /// The system-id header has a value other than the integrator system's.
    WrongSystemId(String),
    /// No bearer token.
    MissingToken,
    /// An `Authorization` header whose value does not start with `Bearer ` (a bare token, another scheme).
    TokenWithoutBearer,
    /// The bearer token is unknown, malformed, expired or revoked.
    InvalidToken,
    /// The token's account has lost the API role.
    Forbidden,
    /// Unknown email or wrong password.
    BadCredentials,
    /// Right credentials, but no API role.
    NotPermitted,
    /// Too many failed logins.
    Throttled(u64),
    /// Too many logins are having their passwords checked at once; try again after this many seconds.
    LoginsBusy(u64),
    /// The refresh token cannot be used.
    InvalidRefreshToken,
    /// The request has no body.
    MissingBody,
    /// The body could not be read.
    MalformedBody(String),
    /// The body is not the JSON the endpoint expects.
    Body(crate::body::BodyError),
    /// The body's text holds a NUL character (`\u0000`).
    NulInBody,
    /// The body is not declared as JSON.
    UnsupportedMediaType,
    /// The body is larger than allowed.
    PayloadTooLarge(usize),
    /// The query string cannot be parsed.
    MalformedQuery(String),
    /// A query parameter holds a NUL character (`%00`).
    NulInQuery,
    /// A credential header (named here) was sent more than once.
    RepeatedHeader(String),
    /// The request's URI is longer than this many bytes.
    UriTooLong(usize),
    /// The request's headers are larger than this many bytes, or more than hyper reads.
    HeadersTooLarge(usize),
    /// The request line or a header line cannot be parsed as HTTP/1.1.
    MalformedRequest,
    /// `page` is not a positive integer.
    InvalidPage(String),
    /// `size` is out of range.
    InvalidSize(String, u64),
    /// The page is past the last.
    PageNotFound { page: u64, last: u64 },
    /// An audit filter or `active` is malformed.
    Filter(FilterError),
    /// A record does not exist (in the caller's society).
    NotFound { resource: &'static str, id: String },
    /// No route has this path.
    RouteNotFound(String),
    /// The route exists, not for this method; `elsewhere` names the operation (`GET /api/v2/third_party/plots`)
    /// that serves the same resource with this method in another version of the API, when one does.
    MethodNotAllowed { elsewhere: Option<String> },
    /// The request took too long.
    Timeout,
    /// The request body paused longer than this many seconds.
    SlowBody(u64),
    /// The client's rate limit is spent; it may try again after this many seconds.
    RateLimited(u64),
    /// The database is unavailable.
    Unavailable,
    /// Anything unexpected; details are only in the server's log.
    Internal,
    /// The feed's `after` is neither `now` nor a cursor the feed handed out.
    BadCursor(String),
    /// A `types` entry names no event type.
    UnknownEventType(String),
    /// The feed's `types` lists more entries than the maximum.
    TooManyEventTypes(usize),
    /// The feed's `size` is not 1 to the maximum.
    InvalidFeedSize(String, u32),
    /// The events after the cursor are past the retention period (days) and were pruned.
    FeedExpired(u64),
    /// An error status with no more specific message.
    Status(u16),
    /// The applicators list was asked for a page past its last (answered with envelope code 0).
    PageBeyondMaximum { page: u64, max: u64 },
    /// A boolean filter other than `active` (e.g. a work order's `pending`) is not 1, 0, true or false.
    InvalidFlag { param: &'static str, value: String },
    /// The `Idempotency-Key` header is empty, too long or not printable ASCII.
    InvalidIdempotencyKey,
    /// The `Idempotency-Key` was first used for a different request.
    IdempotencyMismatch,
    /// The first request with this `Idempotency-Key` is still being answered.
    IdempotencyInProgress,
    /// The first request with this `Idempotency-Key` was written, but its answer is not kept (a secret, or lost).
    IdempotencyAnswerLost,
    /// The API-key header (named here) was sent, but is not a live key of the caller's society.
    InvalidApiKey(String),
    /// A write was refused: the record's resource, its id when the write names one, and why.
    Refused {
        resource: &'static str,
        id: String,
        refusal: Refusal,
    },
    /// A job body's `campaigns` list is empty or longer than a job may be.
    JobRows { count: usize, max: usize },
    /// The society already has the most webhook endpoints it may have (this many).
    TooManyWebhookEndpoints(usize),
}

impl Msg {
    /// The message in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        use Lang::{En, Es, Pt};
        match (self, lang) {
            (Msg::MissingSystemId(h), Es) => {
                format!("Falta el encabezado {h}; debe valer 8 en todas las llamadas.")
            }
            (Msg::MissingSystemId(h), Pt) => {
                format!("Falta o cabeçalho {h}; ele deve valer 8 em todas as chamadas.")
            }
            (Msg::MissingSystemId(h), En) => {
                format!("The {h} header is missing; it must be 8 on every call.")
            }
            (Msg::WrongSystemId(h), Es) => {
                format!("El encabezado {h} debe valer 8 (sistema integrador de terceros).")
            }
            (Msg::WrongSystemId(h), Pt) => {
                format!("O cabeçalho {h} deve valer 8 (sistema integrador de terceiros).")
            }
            (Msg::WrongSystemId(h), En) => {
                format!("The {h} header must be 8 (third-party integrator system).")
            }
            (Msg::MissingToken, Es) => "Falta el token de acceso: envíe Authorization: Bearer <token>.".into(),
            (Msg::MissingToken, Pt) => "Falta o token de acesso: envie Authorization: Bearer <token>.".into(),
            (Msg::MissingToken, En) => "The access token is missing: send Authorization: Bearer <token>.".into(),
            (Msg::TokenWithoutBearer, Es) => "El encabezado Authorization debe llevar el token después de la palabra \
                 Bearer: envíelo como Authorization: Bearer <token>."
                .into(),
            (Msg::TokenWithoutBearer, Pt) => "O cabeçalho Authorization deve levar o token depois da palavra Bearer: \
                 envie-o como Authorization: Bearer <token>."
                .into(),
            (Msg::TokenWithoutBearer, En) => {
                "The Authorization header must carry the token after the word Bearer: send it as Authorization: \
                 Bearer <token>."
                    .into()
            }
            (Msg::InvalidToken, Es) => "El token de acceso es inválido o expiró.".into(),
            (Msg::InvalidToken, Pt) => "O token de acesso é inválido ou expirou.".into(),
            (Msg::InvalidToken, En) => "The access token is invalid or has expired.".into(),
            (Msg::Forbidden, Es) => "El usuario no tiene permisos suficientes (rol api_integrated).".into(),
            (Msg::Forbidden, Pt) => "O usuário não tem permissões suficientes (papel api_integrated).".into(),
            (Msg::Forbidden, En) => "The user lacks the required permission (role api_integrated).".into(),
            (Msg::BadCredentials, Es) => "Email o contraseña incorrectos.".into(),
            (Msg::BadCredentials, Pt) => "Email ou senha incorretos.".into(),
            (Msg::BadCredentials, En) => "Wrong email or password.".into(),
            (Msg::NotPermitted, Es) => "El usuario no tiene el rol api_integrated o está deshabilitado.".into(),
            (Msg::NotPermitted, Pt) => "O usuário não tem o papel api_integrated ou está desabilitado.".into(),
            (Msg::NotPermitted, En) => "The user does not hold the api_integrated role or is disabled.".into(),
            (Msg::Throttled(s), Es) => {
                format!("Demasiados intentos fallidos. Intente de nuevo en {s} segundos.")
            }
            (Msg::Throttled(s), Pt) => {
                format!("Muitas tentativas falhas. Tente novamente em {s} segundos.")
            }
            (Msg::Throttled(s), En) => {
                format!("Too many failed attempts. Try again in {s} seconds.")
            }
            (Msg::LoginsBusy(s), Es) => {
                format!("Hay demasiados inicios de sesión en curso. Intente de nuevo en {s} segundos.")
            }
            (Msg::LoginsBusy(s), Pt) => {
                format!("Há logins demais em andamento. Tente novamente em {s} segundos.")
            }
            (Msg::LoginsBusy(s), En) => format!("Too many logins are being checked at once. Try again in {s} seconds."),
            (Msg::InvalidRefreshToken, Es) => "El refresh token es inválido, expiró o ya fue usado.".into(),
            (Msg::InvalidRefreshToken, Pt) => "O refresh token é inválido, expirou ou já foi usado.".into(),
            (Msg::InvalidRefreshToken, En) => "The refresh token is invalid, expired or already used.".into(),
            (Msg::MissingBody, Es) => "Falta el cuerpo de la solicitud (JSON).".into(),
            (Msg::MissingBody, Pt) => "Falta o corpo da requisição (JSON).".into(),
            (Msg::MissingBody, En) => "The request body (JSON) is missing.".into(),
            (Msg::MalformedBody(d), Es) => format!("El cuerpo de la solicitud no es válido: {d}"),
            (Msg::MalformedBody(d), Pt) => format!("O corpo da requisição não é válido: {d}"),
            (Msg::MalformedBody(d), En) => format!("The request body is not valid: {d}"),
            (Msg::Body(error), lang) => body_hints::body_text(error, lang),
            (Msg::NulInBody, Es) => {
                "El cuerpo de la solicitud no es válido: un texto contiene el carácter NUL (\\u0000).".into()
            }
            (Msg::NulInBody, Pt) => {
                "O corpo da requisição não é válido: um texto contém o caractere NUL (\\u0000).".into()
            }
            (Msg::NulInBody, En) => "The request body is not valid: a text holds the NUL character (\\u0000).".into(),
            (Msg::UnsupportedMediaType, Es) => "El cuerpo debe enviarse con Content-Type: application/json.".into(),
            (Msg::UnsupportedMediaType, Pt) => "O corpo deve ser enviado com Content-Type: application/json.".into(),
            (Msg::UnsupportedMediaType, En) => "The body must be sent with Content-Type: application/json.".into(),
            (Msg::PayloadTooLarge(n), Es) => format!("El cuerpo supera el máximo de {n} bytes."),
            (Msg::PayloadTooLarge(n), Pt) => format!("O corpo excede o máximo de {n} bytes."),
            (Msg::PayloadTooLarge(n), En) => format!("The body exceeds the maximum of {n} bytes."),
            (Msg::MalformedQuery(d), Es) => {
                format!("Los parámetros de la consulta no son válidos: {d}")
            }
            (Msg::MalformedQuery(d), Pt) => {
                format!("Os parâmetros da consulta não são válidos: {d}")
            }
            (Msg::MalformedQuery(d), En) => format!("The query parameters are not valid: {d}"),
            (Msg::NulInQuery, Es) => {
                "Los parámetros de la consulta no son válidos: uno contiene el carácter NUL (%00).".into()
            }
            (Msg::NulInQuery, Pt) => "Os parâmetros da consulta não são válidos: um contém o caractere NUL (%00).".into(),
            (Msg::NulInQuery, En) => "The query parameters are not valid: one holds the NUL character (%00).".into(),
            (Msg::RepeatedHeader(h), Es) => format!("El encabezado {h} se envió más de una vez; envíelo una sola vez."),
            (Msg::RepeatedHeader(h), Pt) => format!("O cabeçalho {h} foi enviado mais de uma vez; envie-o uma só vez."),
            (Msg::RepeatedHeader(h), En) => format!("The {h} header was sent more than once; send it once."),
            (Msg::UriTooLong(n), Es) => format!("La URI de la solicitud supera el máximo de {n} bytes."),
            (Msg::UriTooLong(n), Pt) => format!("A URI da requisição excede o máximo de {n} bytes."),
            (Msg::UriTooLong(n), En) => format!("The request URI exceeds the maximum of {n} bytes."),
            (Msg::HeadersTooLarge(n), Es) => {
                format!("Los encabezados de la solicitud superan el máximo de {n} bytes (o de 100 encabezados).")
            }
            (Msg::HeadersTooLarge(n), Pt) => {
                format!("Os cabeçalhos da requisição excedem o máximo de {n} bytes (ou de 100 cabeçalhos).")
            }
            (Msg::HeadersTooLarge(n), En) => {
                format!("The request headers exceed the maximum of {n} bytes (or of 100 headers).")
            }
            (Msg::MalformedRequest, Es) => "La solicitud no es HTTP/1.1 válido (línea de solicitud o encabezado).".into(),
            (Msg::MalformedRequest, Pt) => "A requisição não é HTTP/1.1 válido (linha de requisição ou cabeçalho).".into(),
            (Msg::MalformedRequest, En) => "The request is not valid HTTP/1.1 (request line or header line).".into(),
            (Msg::InvalidPage(v), Es) => {
                format!("El parámetro page debe ser un entero positivo; se recibió {v:?}.")
            }
            (Msg::InvalidPage(v), Pt) => {
                format!("O parâmetro page deve ser um inteiro positivo; recebido {v:?}.")
            }
            (Msg::InvalidPage(v), En) => {
                format!("The page parameter must be a positive integer; got {v:?}.")
            }
            (Msg::InvalidSize(v, max), Es) => {
                format!("El parámetro size debe ser un entero entre 1 y {max}; se recibió {v:?}.")
            }
            (Msg::InvalidSize(v, max), Pt) => {
                format!("O parâmetro size deve ser um inteiro entre 1 e {max}; recebido {v:?}.")
            }
            (Msg::InvalidSize(v, max), En) => {
                format!("The size parameter must be an integer from 1 to {max}; got {v:?}.")
            }
            (Msg::PageNotFound { page, last }, Es) => {
                format!("La página {page} no existe. La última página es {last}.")
            }
            (Msg::PageNotFound { page, last }, Pt) => {
                format!("A página {page} não existe. A última página é {last}.")
            }
            (Msg::PageNotFound { page, last }, En) => {
                format!("Page {page} does not exist. The last page is {last}.")
            }
            (Msg::Filter(error), lang) => filter_text(error, lang),
            (Msg::NotFound { resource, id }, Es) => {
                format!("No existe el recurso {resource} con id {id}.")
            }
            (Msg::NotFound { resource, id }, Pt) => {
                format!("Não existe o recurso {resource} com id {id}.")
            }
            (Msg::NotFound { resource, id }, En) => {
                format!("There is no {resource} record with id {id}.")
            }
            (Msg::RouteNotFound(p), Es) => format!("La ruta {p} no existe."),
            (Msg::RouteNotFound(p), Pt) => format!("A rota {p} não existe."),
            (Msg::RouteNotFound(p), En) => format!("The path {p} does not exist."),
            (Msg::MethodNotAllowed { elsewhere: None }, Es) => "El método no está permitido en esta ruta.".into(),
            (Msg::MethodNotAllowed { elsewhere: None }, Pt) => "O método não é permitido nesta rota.".into(),
            (Msg::MethodNotAllowed { elsewhere: None }, En) => "The method is not allowed on this path.".into(),
            (Msg::MethodNotAllowed { elsewhere: Some(o) }, Es) => format!(
                "El método no está permitido en esta ruta. Otra versión de la API ofrece este recurso con ese \
                 método: {o}."
            ),
            (Msg::MethodNotAllowed { elsewhere: Some(o) }, Pt) => format!(
                "O método não é permitido nesta rota. Outra versão da API oferece este recurso com esse método: {o}."
            ),
            (Msg::MethodNotAllowed { elsewhere: Some(o) }, En) => format!(
                "The method is not allowed on this path. Another version of the API serves this resource with that \
                 method: {o}."
            ),
            (Msg::Timeout, Es) => "La solicitud tardó demasiado.".into(),
            (Msg::Timeout, Pt) => "A requisição demorou demais.".into(),
            (Msg::Timeout, En) => "The request took too long.".into(),
            (Msg::SlowBody(s), Es) => format!("El cuerpo de la solicitud dejó de llegar durante más de {s} segundos."),
            (Msg::SlowBody(s), Pt) => format!("O corpo da requisição parou de chegar por mais de {s} segundos."),
            (Msg::SlowBody(s), En) => format!("The request body stopped arriving for more than {s} seconds."),
            (Msg::RateLimited(s), Es) => format!("Demasiadas solicitudes. Intente de nuevo en {s} segundos."),
            (Msg::RateLimited(s), Pt) => format!("Requisições demais. Tente novamente em {s} segundos."),
            (Msg::RateLimited(s), En) => format!("Too many requests. Try again in {s} seconds."),
            (Msg::Unavailable, Es) => "El servicio no está disponible por el momento. Intente de nuevo.".into(),
            (Msg::Unavailable, Pt) => "O serviço está indisponível no momento. Tente novamente.".into(),
            (Msg::Unavailable, En) => "The service is unavailable right now. Try again.".into(),
            (Msg::Internal, Es) => "Error interno del servidor.".into(),
            (Msg::Internal, Pt) => "Erro interno do servidor.".into(),
            (Msg::Internal, En) => "Internal server error.".into(),
            (Msg::BadCursor(v), Es) => {
                format!("El parámetro after ('{v}') debe ser 'now' o un cursor devuelto por el feed (next_cursor).")
            }
            (Msg::BadCursor(v), Pt) => {
                format!("O parâmetro after ('{v}') deve ser 'now' ou um cursor devolvido pelo feed (next_cursor).")
            }
            (Msg::BadCursor(v), En) => {
                format!("The after parameter ('{v}') must be 'now' or a cursor the feed returned (next_cursor).")
            }
            (Msg::UnknownEventType(v), Es) => format!(
                "El tipo de evento '{v}' no existe: use <recurso>.<acción> (p. ej. work_order.updated) o <recurso>.*."
            ),
            (Msg::UnknownEventType(v), Pt) => format!(
                "O tipo de evento '{v}' não existe: use <recurso>.<ação> (p. ex. work_order.updated) ou <recurso>.*."
            ),
            (Msg::UnknownEventType(v), En) => format!(
                "There is no event type '{v}': use <resource>.<action> (e.g. work_order.updated) or <resource>.*."
            ),
            (Msg::TooManyEventTypes(max), Es) => format!(
                "El parámetro types admite a lo sumo {max} tipos; cada tipo basta una vez, y <recurso>.* los incluye todos."
            ),
            (Msg::TooManyEventTypes(max), Pt) => format!(
                "O parâmetro types aceita no máximo {max} tipos; cada tipo basta uma vez, e <recurso>.* inclui todos."
            ),
            (Msg::TooManyEventTypes(max), En) => format!(
                "The types parameter takes at most {max} types; each type is needed once, and <resource>.* covers them all."
            ),
            (Msg::InvalidFeedSize(v, max), Es) => {
                format!("El parámetro size ('{v}') debe ser un entero entre 1 y {max}.")
            }
            (Msg::InvalidFeedSize(v, max), Pt) => {
                format!("O parâmetro size ('{v}') deve ser um inteiro entre 1 e {max}.")
            }
            (Msg::InvalidFeedSize(v, max), En) => {
                format!("The size parameter ('{v}') must be an integer from 1 to {max}.")
            }
            (Msg::FeedExpired(days), Es) => format!(
                "El cursor es anterior a los {days} días que se conservan los eventos: resincronice todo (lea cada \
                 lista completa) y siga el feed desde after=now."
            ),
            (Msg::FeedExpired(days), Pt) => format!(
                "O cursor é anterior aos {days} dias em que os eventos são mantidos: ressincronize tudo (leia cada \
                 lista completa) e siga o feed a partir de after=now."
            ),
            (Msg::FeedExpired(days), En) => format!(
                "The cursor is older than the {days} days events are kept: resync everything (read every list in \
                 full) and follow the feed from after=now."
            ),
            (Msg::Status(code), Es) => format!("La solicitud no pudo completarse (HTTP {code})."),
            (Msg::Status(code), Pt) => {
                format!("A requisição não pôde ser concluída (HTTP {code}).")
            }
            (Msg::Status(code), En) => format!("The request could not be completed (HTTP {code})."),
            (Msg::PageBeyondMaximum { page, max }, Es) => {
                format!("La página solicitada ({page}) supera la página máxima ({max}).")
            }
            (Msg::PageBeyondMaximum { page, max }, Pt) => {
                format!("A página solicitada ({page}) excede a página máxima ({max}).")
            }
            (Msg::PageBeyondMaximum { page, max }, En) => {
                format!("The requested page ({page}) exceeds the maximum page ({max}).")
            }
            (Msg::InvalidFlag { param, value }, Es) => {
                format!("El parámetro {param} debe ser un booleano: 1, 0, true o false; se recibió {value:?}.")
            }
            (Msg::InvalidFlag { param, value }, Pt) => {
                format!("O parâmetro {param} deve ser um booleano: 1, 0, true ou false; recebido {value:?}.")
            }
            (Msg::InvalidFlag { param, value }, En) => {
                format!("The {param} parameter must be a boolean: 1, 0, true or false; got {value:?}.")
            }
            (Msg::InvalidIdempotencyKey, Es) => {
                "El encabezado Idempotency-Key debe tener entre 1 y 255 caracteres ASCII visibles.".into()
            }
            (Msg::InvalidIdempotencyKey, Pt) => {
                "O cabeçalho Idempotency-Key deve ter entre 1 e 255 caracteres ASCII visíveis.".into()
            }
            (Msg::InvalidIdempotencyKey, En) => {
                "The Idempotency-Key header must have 1 to 255 visible ASCII characters.".into()
            }
            (Msg::IdempotencyMismatch, Es) => {
                "Este Idempotency-Key ya se usó con otra solicitud; use una clave nueva.".into()
            }
            (Msg::IdempotencyMismatch, Pt) => {
                "Este Idempotency-Key já foi usado com outra requisição; use uma chave nova.".into()
            }
            (Msg::IdempotencyMismatch, En) => {
                "This Idempotency-Key was already used for a different request; use a new key.".into()
            }
            (Msg::IdempotencyInProgress, Es) => {
                "La solicitud original con este Idempotency-Key todavía se está procesando.".into()
            }
            (Msg::IdempotencyInProgress, Pt) => {
                "A requisição original com este Idempotency-Key ainda está sendo processada.".into()
            }
            (Msg::IdempotencyInProgress, En) => {
                "The original request with this Idempotency-Key is still being processed.".into()
            }
            (Msg::IdempotencyAnswerLost, Es) => "La solicitud original con este Idempotency-Key se guardó, pero su \
                 respuesta no se conserva (llevaba un secreto, que se muestra una sola vez, o el servidor se detuvo \
                 antes de registrarla); no la reenvíe: busque el registro (por su código externo)."
                .into(),
            (Msg::IdempotencyAnswerLost, Pt) => "A requisição original com este Idempotency-Key foi gravada, mas sua \
                 resposta não é guardada (levava um segredo, mostrado uma só vez, ou o servidor parou antes de \
                 registrá-la); não a reenvie: procure o registro (pelo seu código externo)."
                .into(),
            (Msg::IdempotencyAnswerLost, En) => "The original request with this Idempotency-Key was written, but its \
                 answer is not kept (it held a secret, shown only once, or the server stopped before recording it); \
                 do not send it again: look the record up (by its external code)."
                .into(),
            (Msg::InvalidApiKey(h), Es) => format!("El encabezado {h} no es una clave de API válida de su sociedad."),
            (Msg::InvalidApiKey(h), Pt) => format!("O cabeçalho {h} não é uma chave de API válida da sua sociedade."),
            (Msg::InvalidApiKey(h), En) => format!("The {h} header is not a valid API key of your society."),
            (Msg::Refused { resource, id, refusal }, lang) => refusal::refusal_text(resource, id, refusal, lang),
            (Msg::TooManyWebhookEndpoints(max), Es) => format!(
                "La sociedad ya tiene {max} endpoints de webhook, el máximo; elimine uno antes de registrar otro."
            ),
            (Msg::TooManyWebhookEndpoints(max), Pt) => format!(
                "A sociedade já tem {max} endpoints de webhook, o máximo; exclua um antes de registrar outro."
            ),
            (Msg::TooManyWebhookEndpoints(max), En) => format!(
                "The society already has {max} webhook endpoints, the most it may have; delete one before registering another."
            ),
            (Msg::JobRows { count, max }, Es) => {
                format!("La lista campaigns debe tener entre 1 y {max} filas; se recibieron {count}.")
            }
            (Msg::JobRows { count, max }, Pt) => {
                format!("A lista campaigns deve ter entre 1 e {max} linhas; foram recebidas {count}.")
            }
            (Msg::JobRows { count, max }, En) => {
                format!("The campaigns list must have from 1 to {max} rows; got {count}.")
            }
        }
    }
}

fn filter_text(error: &FilterError, lang: Lang) -> String {
    match (error, lang) {
        (FilterError::InvalidDate { param, value }, Lang::Es) => format!(
            "El parámetro {param} debe tener el formato {DATE_PATTERN} (ISO 8601 con desplazamiento), por ejemplo {DATE_EXAMPLE}; se recibió {value:?}."
        ),
        (FilterError::InvalidDate { param, value }, Lang::Pt) => format!(
            "O parâmetro {param} deve ter o formato {DATE_PATTERN} (ISO 8601 com deslocamento), por exemplo {DATE_EXAMPLE}; recebido {value:?}."
        ),
        (FilterError::InvalidDate { param, value }, Lang::En) => format!(
            "The {param} parameter must follow {DATE_PATTERN} (ISO 8601 with offset), e.g. {DATE_EXAMPLE}; got {value:?}."
        ),
        (FilterError::InvalidActive(v), Lang::Es) => {
            format!("El parámetro active debe ser un booleano: 1, 0, true o false; se recibió {v:?}.")
        }
        (FilterError::InvalidActive(v), Lang::Pt) => {
            format!("O parâmetro active deve ser um booleano: 1, 0, true ou false; recebido {v:?}.")
        }
        (FilterError::InvalidActive(v), Lang::En) => {
            format!("The active parameter must be a boolean: 1, 0, true or false; got {v:?}.")
        }
        (FilterError::WrongGeneration { sent, expected }, Lang::Es) => {
            format!("El parámetro {sent} no pertenece a esta versión de la API; use {expected}.")
        }
        (FilterError::WrongGeneration { sent, expected }, Lang::Pt) => {
            format!("O parâmetro {sent} não pertence a esta versão da API; use {expected}.")
        }
        (FilterError::WrongGeneration { sent, expected }, Lang::En) => {
            format!("The {sent} parameter does not belong to this API version; use {expected}.")
        }
    }
}
