//! Every human-readable message the API sends, in Spanish (the platform's language), Portuguese and English.

use domain::filters::{DATE_EXAMPLE, DATE_PATTERN};
use domain::work_orders::{Rule, Violation, THIRD_PARTY_SYSTEM};
use domain::{FilterError, Lang};

/// A message, before it is put into words.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// The system-id header is absent.
    MissingSystemId(String),
    /// The system-id header has a value other than the integrator system's.
    WrongSystemId(String),
    /// No bearer token.
    MissingToken,
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
    /// The route exists, not for this method.
    MethodNotAllowed,
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
    /// A required text field is blank.
    Blank(&'static str),
    /// A number that must be positive is not.
    NotPositive(&'static str),
    /// A reference to a record that the caller's society does not have.
    UnknownReference { field: &'static str, id: i64 },
    /// The record still has live dependants.
    HasDependants { resource: &'static str, count: i64 },
    /// An error status with no more specific message.
    Status(u16),
    /// A work-order write breaks these rules.
    InvalidWorkOrder(Vec<Violation>),
    /// The work order is read-only.
    WorkOrderReadOnly(i64),
    /// `If-Match` does not name the work order's current version.
    WorkOrderStale(i64),
    /// Another live work order has this `external_id`.
    DuplicateExternalId(i64),
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
    /// The API-key header (named here) was sent, but is not a live key of the caller's society.
    InvalidApiKey(String),
    /// A number outside its range, bounds included.
    OutOfRange { field: &'static str, min: f64, max: f64 },
    /// A value outside a fixed set, listed.
    NotOneOf { field: &'static str, allowed: &'static str },
    /// A field that a device of this kind must have.
    RequiredForKind { field: &'static str, kind: &'static str },
    /// A field that a device of this kind must not have.
    NotForKind { field: &'static str, kind: &'static str },
    /// The silobag lies in another establishment than the one named.
    SilobagElsewhere { silobag_id: i64, establishment_id: i64 },
    /// Items of a batch broke rules, nothing was stored: the first failures by index, and how many failed in all.
    InvalidItems { failures: Vec<(usize, Msg)>, total: usize },
    /// A batch has more items than allowed.
    TooManyItems { sent: usize, max: usize },
    /// A job body's `campaigns` list is empty or longer than a job may be.
    JobRows { count: usize, max: usize },
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
            (Msg::InvalidRefreshToken, Es) => "El refresh token es inválido, expiró o ya fue usado.".into(),
            (Msg::InvalidRefreshToken, Pt) => "O refresh token é inválido, expirou ou já foi usado.".into(),
            (Msg::InvalidRefreshToken, En) => "The refresh token is invalid, expired or already used.".into(),
            (Msg::MissingBody, Es) => "Falta el cuerpo de la solicitud (JSON).".into(),
            (Msg::MissingBody, Pt) => "Falta o corpo da requisição (JSON).".into(),
            (Msg::MissingBody, En) => "The request body (JSON) is missing.".into(),
            (Msg::MalformedBody(d), Es) => format!("El cuerpo de la solicitud no es válido: {d}"),
            (Msg::MalformedBody(d), Pt) => format!("O corpo da requisição não é válido: {d}"),
            (Msg::MalformedBody(d), En) => format!("The request body is not valid: {d}"),
            (Msg::Body(error), lang) => error.text(lang),
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
            (Msg::MethodNotAllowed, Es) => "El método no está permitido en esta ruta.".into(),
            (Msg::MethodNotAllowed, Pt) => "O método não é permitido nesta rota.".into(),
            (Msg::MethodNotAllowed, En) => "The method is not allowed on this path.".into(),
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
            (Msg::Blank(f), Es) => format!("El campo {f} es obligatorio y no puede estar vacío."),
            (Msg::Blank(f), Pt) => format!("O campo {f} é obrigatório e não pode estar vazio."),
            (Msg::Blank(f), En) => format!("The field {f} is required and must not be blank."),
            (Msg::NotPositive(f), Es) => format!("El campo {f} debe ser un número mayor que cero."),
            (Msg::NotPositive(f), Pt) => format!("O campo {f} deve ser um número maior que zero."),
            (Msg::NotPositive(f), En) => format!("The field {f} must be a number greater than zero."),
            (Msg::UnknownReference { field, id }, Es) => {
                format!("{field}: no existe el registro {id} en su sociedad.")
            }
            (Msg::UnknownReference { field, id }, Pt) => {
                format!("{field}: não existe o registro {id} na sua sociedade.")
            }
            (Msg::UnknownReference { field, id }, En) => {
                format!("{field}: there is no record {id} in your society.")
            }
            (Msg::HasDependants { resource, count }, Es) => {
                format!("No se puede eliminar: tiene {count} {resource} activos.")
            }
            (Msg::HasDependants { resource, count }, Pt) => {
                format!("Não é possível excluir: tem {count} {resource} ativos.")
            }
            (Msg::HasDependants { resource, count }, En) => {
                format!("Cannot delete: it still has {count} live {resource}.")
            }
            (Msg::Status(code), Es) => format!("La solicitud no pudo completarse (HTTP {code})."),
            (Msg::Status(code), Pt) => {
                format!("A requisição não pôde ser concluída (HTTP {code}).")
            }
            (Msg::Status(code), En) => format!("The request could not be completed (HTTP {code})."),
            (Msg::InvalidWorkOrder(violations), lang) => {
                let details: Vec<String> = violations.iter().map(|v| violation_text(v, lang)).collect();
                let intro = match lang {
                    Es => "La orden de trabajo no es válida",
                    Pt => "A ordem de trabalho não é válida",
                    En => "The work order is not valid",
                };
                format!("{intro}: {}", details.join("; "))
            }
            (Msg::WorkOrderReadOnly(id), Es) => {
                format!("La orden de trabajo {id} es de solo lectura y no puede modificarse.")
            }
            (Msg::WorkOrderReadOnly(id), Pt) => {
                format!("A ordem de trabalho {id} é somente leitura e não pode ser modificada.")
            }
            (Msg::WorkOrderReadOnly(id), En) => format!("Work order {id} is read-only and cannot be modified."),
            (Msg::WorkOrderStale(id), Es) => {
                format!("La orden de trabajo {id} cambió desde que la leyó (If-Match); léala de nuevo.")
            }
            (Msg::WorkOrderStale(id), Pt) => {
                format!("A ordem de trabalho {id} mudou desde que foi lida (If-Match); leia-a novamente.")
            }
            (Msg::WorkOrderStale(id), En) => {
                format!("Work order {id} changed since you read it (If-Match); read it again.")
            }
            (Msg::DuplicateExternalId(id), Es) => format!("Ya existe la orden de trabajo {id} con ese external_id."),
            (Msg::DuplicateExternalId(id), Pt) => format!("Já existe a ordem de trabalho {id} com esse external_id."),
            (Msg::DuplicateExternalId(id), En) => format!("Work order {id} already has that external_id."),
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
            (Msg::InvalidApiKey(h), Es) => format!("El encabezado {h} no es una clave de API válida de su sociedad."),
            (Msg::InvalidApiKey(h), Pt) => format!("O cabeçalho {h} não é uma chave de API válida da sua sociedade."),
            (Msg::InvalidApiKey(h), En) => format!("The {h} header is not a valid API key of your society."),
            (Msg::OutOfRange { field, min, max }, Es) => {
                format!("El campo {field} debe ser un número entre {min} y {max}.")
            }
            (Msg::OutOfRange { field, min, max }, Pt) => {
                format!("O campo {field} deve ser um número entre {min} e {max}.")
            }
            (Msg::OutOfRange { field, min, max }, En) => {
                format!("The field {field} must be a number from {min} to {max}.")
            }
            (Msg::NotOneOf { field, allowed }, Es) => format!("El campo {field} debe ser uno de: {allowed}."),
            (Msg::NotOneOf { field, allowed }, Pt) => format!("O campo {field} deve ser um de: {allowed}."),
            (Msg::NotOneOf { field, allowed }, En) => format!("The field {field} must be one of: {allowed}."),
            (Msg::RequiredForKind { field, kind }, Es) => {
                format!("El campo {field} es obligatorio para los dispositivos {kind}.")
            }
            (Msg::RequiredForKind { field, kind }, Pt) => {
                format!("O campo {field} é obrigatório para os dispositivos {kind}.")
            }
            (Msg::RequiredForKind { field, kind }, En) => format!("The field {field} is required for {kind} devices."),
            (Msg::NotForKind { field, kind }, Es) => {
                format!("El campo {field} no corresponde a los dispositivos {kind}; omítalo.")
            }
            (Msg::NotForKind { field, kind }, Pt) => {
                format!("O campo {field} não se aplica aos dispositivos {kind}; omita-o.")
            }
            (Msg::NotForKind { field, kind }, En) => {
                format!("The field {field} does not apply to {kind} devices; omit it.")
            }
            (
                Msg::SilobagElsewhere {
                    silobag_id,
                    establishment_id,
                },
                Es,
            ) => {
                format!("silobag_id: el silobolsa {silobag_id} no está en el establecimiento {establishment_id}.")
            }
            (
                Msg::SilobagElsewhere {
                    silobag_id,
                    establishment_id,
                },
                Pt,
            ) => {
                format!("silobag_id: o silo bolsa {silobag_id} não está no estabelecimento {establishment_id}.")
            }
            (
                Msg::SilobagElsewhere {
                    silobag_id,
                    establishment_id,
                },
                En,
            ) => {
                format!("silobag_id: silobag {silobag_id} is not in establishment {establishment_id}.")
            }
            (Msg::InvalidItems { failures, total }, lang) => {
                let details: Vec<String> = failures
                    .iter()
                    .map(|(index, msg)| format!("[{index}].{}", msg.text(lang).trim_end_matches('.')))
                    .collect();
                let (intro, more) = match lang {
                    Es => (
                        format!("{total} elementos no son válidos; no se guardó ninguno"),
                        "y otros",
                    ),
                    Pt => (format!("{total} itens não são válidos; nenhum foi salvo"), "e outros"),
                    En => (format!("{total} items are not valid; none was stored"), "and"),
                };
                let mut text = format!("{intro}: {}", details.join("; "));
                if *total > failures.len() {
                    let rest = total - failures.len();
                    text.push_str(&match lang {
                        En => format!("; {more} {rest} more"),
                        _ => format!("; {more} {rest}"),
                    });
                }
                text.push('.');
                text
            }
            (Msg::TooManyItems { sent, max }, Es) => {
                format!("Se enviaron {sent} elementos; el máximo por solicitud es {max}.")
            }
            (Msg::TooManyItems { sent, max }, Pt) => {
                format!("Foram enviados {sent} itens; o máximo por requisição é {max}.")
            }
            (Msg::TooManyItems { sent, max }, En) => {
                format!("{sent} items were sent; the most a request may carry is {max}.")
            }
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

fn violation_text(violation: &Violation, lang: Lang) -> String {
    let path = &violation.path;
    match (&violation.rule, lang) {
        (Rule::SystemId(sent), Lang::Es) => format!("{path} debe ser \"{THIRD_PARTY_SYSTEM}\" (se recibió {sent:?})"),
        (Rule::SystemId(sent), Lang::Pt) => format!("{path} deve ser \"{THIRD_PARTY_SYSTEM}\" (recebido {sent:?})"),
        (Rule::SystemId(sent), Lang::En) => format!("{path} must be \"{THIRD_PARTY_SYSTEM}\" (got {sent:?})"),
        (Rule::Company { sent, expected }, Lang::Es) => {
            format!("{path} es {sent}, pero debe ser su sociedad, {expected}")
        }
        (Rule::Company { sent, expected }, Lang::Pt) => {
            format!("{path} é {sent}, mas deve ser a sua sociedade, {expected}")
        }
        (Rule::Company { sent, expected }, Lang::En) => {
            format!("{path} is {sent}, but must be your society, {expected}")
        }
        (Rule::Blank, Lang::Es) => format!("{path} es obligatorio y no puede estar vacío"),
        (Rule::Blank, Lang::Pt) => format!("{path} é obrigatório e não pode estar vazio"),
        (Rule::Blank, Lang::En) => format!("{path} is required and must not be blank"),
        (Rule::NotPositive(value), Lang::Es) => format!("{path} debe ser mayor que cero (se recibió {value})"),
        (Rule::NotPositive(value), Lang::Pt) => format!("{path} deve ser maior que zero (recebido {value})"),
        (Rule::NotPositive(value), Lang::En) => format!("{path} must be greater than zero (got {value})"),
        (
            Rule::NotACampaign {
                id,
                species,
                cultivation,
            },
            lang,
        ) => {
            let (rule, as_species, as_cultivation) = match lang {
                Lang::Es => (
                    format!("{path}: {id} no es una campaña de su sociedad; cultivation.local_id lleva el id de una campaña (campaigns.id), no el de una especie ni el de un cultivo"),
                    format!(" ({id} es una especie del catálogo de cultivos)"),
                    format!(" ({id} es un registro de /cultivations; envíe su campaign_id)"),
                ),
                Lang::Pt => (
                    format!("{path}: {id} não é uma campanha da sua sociedade; cultivation.local_id leva o id de uma campanha (campaigns.id), não o de uma espécie nem o de um cultivo"),
                    format!(" ({id} é uma espécie do catálogo de culturas)"),
                    format!(" ({id} é um registro de /cultivations; envie o seu campaign_id)"),
                ),
                Lang::En => (
                    format!("{path}: {id} is not a campaign of your society; cultivation.local_id carries a campaign id (campaigns.id), not a species id nor a cultivation id"),
                    format!(" ({id} is a crop species of the catalogue)"),
                    format!(" ({id} is a /cultivations record; send its campaign_id)"),
                ),
            };
            let mut text = rule;
            if *species {
                text.push_str(&as_species);
            }
            if *cultivation {
                text.push_str(&as_cultivation);
            }
            text
        }
        (Rule::Unknown(id), Lang::Es) => format!("{path}: {id} no existe o no está disponible para su sociedad"),
        (Rule::Unknown(id), Lang::Pt) => format!("{path}: {id} não existe ou não está disponível para a sua sociedade"),
        (Rule::Unknown(id), Lang::En) => format!("{path}: {id} does not exist or is not available to your society"),
        (Rule::UnknownLine(id), Lang::Es) => {
            format!("{path}: {id} no es una línea de esta orden; omita local_id para agregar una línea")
        }
        (Rule::UnknownLine(id), Lang::Pt) => {
            format!("{path}: {id} não é uma linha desta ordem; omita local_id para adicionar uma linha")
        }
        (Rule::UnknownLine(id), Lang::En) => {
            format!("{path}: {id} is not a line of this order; omit local_id to add a line")
        }
        (Rule::DuplicateLine(id), Lang::Es) => format!("{path}: la línea {id} aparece dos veces"),
        (Rule::DuplicateLine(id), Lang::Pt) => format!("{path}: a linha {id} aparece duas vezes"),
        (Rule::DuplicateLine(id), Lang::En) => format!("{path}: line {id} appears twice"),
        (Rule::Repeated(id), Lang::Es) => format!("{path}: {id} está repetido"),
        (Rule::Repeated(id), Lang::Pt) => format!("{path}: {id} está repetido"),
        (Rule::Repeated(id), Lang::En) => format!("{path}: {id} is repeated"),
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
