//! The words of a refused write: every [`Refusal`] and every [`Rule`] of the domain, in Spanish, Portuguese and
//! English, written once here.

use domain::refusal::Expected;
use domain::webhooks::RefusedAddress;
use domain::work_orders::THIRD_PARTY_SYSTEM;
use domain::{Lang, Refusal, Rule, Violation};

/// How many violations of a batch a message names; the rest are counted, so a batch of 10,000 bad readings does not
/// answer a megabyte of messages.
const NAMED_FAILURES: usize = 20;

/// What a refusal of a write to `resource` (record `id`, when it names one) says in `lang`.
pub(crate) fn refusal_text(resource: &'static str, id: &str, refusal: &Refusal, lang: Lang) -> String {
    use Lang::{En, Es, Pt};
    match (refusal, lang) {
        (Refusal::Invalid(violations), lang) => invalid_text(resource, violations, lang),
        (Refusal::TooManyItems { sent, max }, Es) => {
            format!("Se enviaron {sent} elementos; el máximo por solicitud es {max}.")
        }
        (Refusal::TooManyItems { sent, max }, Pt) => {
            format!("Foram enviados {sent} itens; o máximo por requisição é {max}.")
        }
        (Refusal::TooManyItems { sent, max }, En) => {
            format!("{sent} items were sent; the most a request may carry is {max}.")
        }
        (Refusal::NotFound, lang) => super::Msg::NotFound {
            resource,
            id: id.to_owned(),
        }
        .text(lang),
        (Refusal::HasDependants { resource, count }, lang) => dependants_text(resource, *count, lang),
        (Refusal::ReadOnly, Es) => format!("La orden de trabajo {id} es de solo lectura y no puede modificarse."),
        (Refusal::ReadOnly, Pt) => format!("A ordem de serviço {id} é somente leitura e não pode ser modificada."),
        (Refusal::ReadOnly, En) => format!("Work order {id} is read-only and cannot be modified."),
        (Refusal::Stale, Es) => {
            format!("La orden de trabajo {id} cambió desde que la leyó (If-Match); léala de nuevo.")
        }
        (Refusal::Stale, Pt) => {
            format!("A ordem de serviço {id} mudou desde que foi lida (If-Match); leia-a novamente.")
        }
        (Refusal::Stale, En) => format!("Work order {id} changed since you read it (If-Match); read it again."),
        (Refusal::DuplicateExternalId(other), Es) => {
            format!("Ya existe la orden de trabajo {other} con ese external_id.")
        }
        (Refusal::DuplicateExternalId(other), Pt) => {
            format!("Já existe a ordem de serviço {other} com esse external_id.")
        }
        (Refusal::DuplicateExternalId(other), En) => format!("Work order {other} already has that external_id."),
        (Refusal::DuplicateExternalCode(other), lang) => duplicate_code_text(resource, *other, lang),
    }
}

/// Another live record of `resource` already has the external code a write gives it.
fn duplicate_code_text(resource: &str, other: i64, lang: Lang) -> String {
    let (noun, _, feminine) = dependant_noun(resource, lang);
    match lang {
        Lang::Es => {
            let article = if feminine { "la" } else { "el" };
            format!("Ya existe {article} {noun} {other} ({resource}) con ese external_code.")
        }
        Lang::Pt => {
            let article = if feminine { "a" } else { "o" };
            format!("Já existe {article} {noun} {other} ({resource}) com esse external_code.")
        }
        Lang::En => format!("The {noun} {other} ({resource}) already has that external_code."),
    }
}

/// A body's violations: a work order's, all of them, under one heading; a batch's counted, naming the first
/// [`NAMED_FAILURES`]; any other body's one after another.
fn invalid_text(resource: &str, violations: &[Violation], lang: Lang) -> String {
    let named = |count: usize| -> String {
        let texts: Vec<String> = violations.iter().take(count).map(|v| violation_text(v, lang)).collect();
        texts.join("; ")
    };
    if resource == "work_orders" {
        let details = named(violations.len());
        let intro = match lang {
            Lang::Es => "La orden de trabajo no es válida",
            Lang::Pt => "A ordem de serviço não é válida",
            Lang::En => "The work order is not valid",
        };
        return format!("{intro}: {details}");
    }
    if !violations.iter().all(|violation| violation.path.starts_with('[')) {
        return format!("{}.", named(violations.len()));
    }
    let details = named(NAMED_FAILURES);
    let total = violations.len();
    let intro = match (lang, total) {
        (Lang::Es, 1) => "1 elemento no es válido; no se guardó ninguno".to_owned(),
        (Lang::Es, _) => format!("{total} elementos no son válidos; no se guardó ninguno"),
        (Lang::Pt, 1) => "1 item não é válido; nenhum foi salvo".to_owned(),
        (Lang::Pt, _) => format!("{total} itens não são válidos; nenhum foi salvo"),
        (Lang::En, 1) => "1 item is not valid; none was stored".to_owned(),
        (Lang::En, _) => format!("{total} items are not valid; none was stored"),
    };
    let mut text = format!("{intro}: {details}");
    let rest = total.saturating_sub(NAMED_FAILURES);
    if rest > 0 {
        text.push_str(&match lang {
            Lang::Es => format!("; y {rest} más"),
            Lang::Pt => format!("; e mais {rest}"),
            Lang::En => format!("; and {rest} more"),
        });
    }
    text.push('.');
    text
}

/// What a record's live dependants of `resource` (a table) are called: singular and plural, and whether the noun is
/// feminine, in `lang`. The resource's own name follows in the message, so a table without a noun here still reads.
fn dependant_noun(resource: &str, lang: Lang) -> (&'static str, &'static str, bool) {
    match (resource, lang) {
        ("plots", Lang::Es) => ("lote", "lotes", false),
        ("plots", Lang::Pt) => ("talhão", "talhões", false),
        ("plots", Lang::En) => ("plot", "plots", false),
        ("campaigns", Lang::Es) => ("campaña", "campañas", true),
        ("campaigns", Lang::Pt) => ("safra", "safras", true),
        ("campaigns", Lang::En) => ("campaign", "campaigns", false),
        ("silobags", Lang::Es) => ("silobolsa", "silobolsas", true),
        ("silobags", Lang::Pt) => ("silo bolsa", "silos bolsa", false),
        ("silobags", Lang::En) => ("silobag", "silobags", false),
        ("devices", Lang::Es | Lang::Pt) => ("dispositivo", "dispositivos", false),
        ("devices", Lang::En) => ("device", "devices", false),
        ("warehouses", Lang::Es) => ("depósito", "depósitos", false),
        ("warehouses", Lang::Pt) => ("armazém", "armazéns", false),
        ("warehouses", Lang::En) => ("warehouse", "warehouses", false),
        ("establishments", Lang::Es) => ("establecimiento", "establecimientos", false),
        ("establishments", Lang::Pt) => ("estabelecimento", "estabelecimentos", false),
        ("establishments", Lang::En) => ("establishment", "establishments", false),
        ("applicators", Lang::Es | Lang::Pt) => ("aplicador", "aplicadores", false),
        ("applicators", Lang::En) => ("applicator", "applicators", false),
        ("farmers", Lang::Es) => ("productor", "productores", false),
        ("farmers", Lang::Pt) => ("produtor", "produtores", false),
        ("farmers", Lang::En) => ("farmer", "farmers", false),
        ("master_campaigns", Lang::Es) => ("campaña maestra", "campañas maestras", true),
        ("master_campaigns", Lang::Pt) => ("safra mestre", "safras mestre", true),
        ("master_campaigns", Lang::En) => ("master campaign", "master campaigns", false),
        (_, Lang::Es | Lang::Pt) => ("registro", "registros", false),
        (_, Lang::En) => ("record", "records", false),
    }
}

/// "It still has 1 live plot (plots)", with the noun and its adjective agreeing with the count.
fn dependants_text(resource: &str, count: i64, lang: Lang) -> String {
    let (singular, plural, feminine) = dependant_noun(resource, lang);
    let one = count == 1;
    let noun = if one { singular } else { plural };
    match lang {
        Lang::Es => {
            let live = match (feminine, one) {
                (false, true) => "activo",
                (false, false) => "activos",
                (true, true) => "activa",
                (true, false) => "activas",
            };
            format!("No se puede eliminar: tiene {count} {noun} {live} ({resource}).")
        }
        Lang::Pt => {
            let live = match (feminine, one) {
                (false, true) => "ativo",
                (false, false) => "ativos",
                (true, true) => "ativa",
                (true, false) => "ativas",
            };
            format!("Não é possível excluir: tem {count} {noun} {live} ({resource}).")
        }
        Lang::En => format!("Cannot delete: it still has {count} live {noun} ({resource})."),
    }
}

/// One broken rule, led by where it is.
pub(super) fn violation_text(violation: &Violation, lang: Lang) -> String {
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
        // `{:?}` writes 1e-320 as such, where `{}` would write 320 zeros.
        (Rule::TooSmall { sent, min }, Lang::Es) => {
            format!(
                "{path} debe ser al menos {min:?}: un valor menor no se guarda tal como se envía (se recibió {sent:?})"
            )
        }
        (Rule::TooSmall { sent, min }, Lang::Pt) => {
            format!(
                "{path} deve ser pelo menos {min:?}: um valor menor não é guardado como enviado (recebido {sent:?})"
            )
        }
        (Rule::TooSmall { sent, min }, Lang::En) => {
            format!("{path} must be at least {min:?}: a smaller value is not stored as sent (got {sent:?})")
        }
        (Rule::OutOfRange { min, max }, Lang::Es) => format!("{path} debe ser un número entre {min} y {max}"),
        (Rule::OutOfRange { min, max }, Lang::Pt) => format!("{path} deve ser um número entre {min} e {max}"),
        (Rule::OutOfRange { min, max }, Lang::En) => format!("{path} must be a number from {min} to {max}"),
        (Rule::NotOneOf(allowed), Lang::Es) => format!("{path} debe ser uno de: {allowed}"),
        (Rule::NotOneOf(allowed), Lang::Pt) => format!("{path} deve ser um de: {allowed}"),
        (Rule::NotOneOf(allowed), Lang::En) => format!("{path} must be one of: {allowed}"),
        (Rule::RequiredForKind(kind), Lang::Es) => format!("{path} es obligatorio para los dispositivos {kind}"),
        (Rule::RequiredForKind(kind), Lang::Pt) => format!("{path} é obrigatório para os dispositivos {kind}"),
        (Rule::RequiredForKind(kind), Lang::En) => format!("{path} is required for {kind} devices"),
        (Rule::NotForKind(kind), Lang::Es) => format!("{path} no corresponde a los dispositivos {kind}; omítalo"),
        (Rule::NotForKind(kind), Lang::Pt) => format!("{path} não se aplica aos dispositivos {kind}; omita-o"),
        (Rule::NotForKind(kind), Lang::En) => format!("{path} does not apply to {kind} devices; omit it"),
        (
            Rule::NotACampaign {
                id,
                species,
                cultivation,
            },
            lang,
        ) => not_a_campaign_text(path, *id, *species, *cultivation, lang),
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
        (Rule::Repeated(id), Lang::Es | Lang::Pt) => format!("{path}: {id} está repetido"),
        (Rule::Repeated(id), Lang::En) => format!("{path}: {id} is repeated"),
        (
            Rule::SilobagElsewhere {
                silobag_id,
                establishment_id,
            },
            Lang::Es,
        ) => {
            format!("{path}: la silobolsa {silobag_id} no está en el establecimiento {establishment_id}")
        }
        (
            Rule::SilobagElsewhere {
                silobag_id,
                establishment_id,
            },
            Lang::Pt,
        ) => {
            format!("{path}: o silo bolsa {silobag_id} não está no estabelecimento {establishment_id}")
        }
        (
            Rule::SilobagElsewhere {
                silobag_id,
                establishment_id,
            },
            Lang::En,
        ) => {
            format!("{path}: silobag {silobag_id} is not in establishment {establishment_id}")
        }
        // Rules only imported files break: wrong types, unknown codes and columns, repeated codes, unreadable rows.
        (Rule::WrongType { expected, sent }, Lang::Es) => {
            format!(
                "{path} debe ser {} (se recibió {sent:?})",
                expected_text(*expected, lang)
            )
        }
        (Rule::WrongType { expected, sent }, Lang::Pt) => {
            format!("{path} deve ser {} (recebido {sent:?})", expected_text(*expected, lang))
        }
        (Rule::WrongType { expected, sent }, Lang::En) => {
            format!("{path} must be {} (got {sent:?})", expected_text(*expected, lang))
        }
        (Rule::UnknownCode(code), Lang::Es) => {
            format!("{path}: {code:?} no existe o no está disponible para su sociedad")
        }
        (Rule::UnknownCode(code), Lang::Pt) => {
            format!("{path}: {code:?} não existe ou não está disponível para a sua sociedade")
        }
        (Rule::UnknownCode(code), Lang::En) => {
            format!("{path}: {code:?} does not exist or is not available to your society")
        }
        (Rule::Mismatch { id, code }, Lang::Es) => {
            format!("{path}: el id {id} y el código {code:?} no son el mismo registro")
        }
        (Rule::Mismatch { id, code }, Lang::Pt) => {
            format!("{path}: o id {id} e o código {code:?} não são o mesmo registro")
        }
        (Rule::Mismatch { id, code }, Lang::En) => format!("{path}: id {id} and code {code:?} are not the same record"),
        (Rule::UnknownColumn(columns), Lang::Es) => format!("la columna {path} no existe; las columnas son: {columns}"),
        (Rule::UnknownColumn(columns), Lang::Pt) => format!("a coluna {path} não existe; as colunas são: {columns}"),
        (Rule::UnknownColumn(columns), Lang::En) => format!("there is no column {path}; the columns are: {columns}"),
        (Rule::RepeatedColumn, Lang::Es) => format!("la columna {path} aparece dos veces"),
        (Rule::RepeatedColumn, Lang::Pt) => format!("a coluna {path} aparece duas vezes"),
        (Rule::RepeatedColumn, Lang::En) => format!("column {path} appears twice"),
        (Rule::MissingColumn, Lang::Es) => format!("falta la columna {path}"),
        (Rule::MissingColumn, Lang::Pt) => format!("falta a coluna {path}"),
        (Rule::MissingColumn, Lang::En) => format!("column {path} is missing"),
        (Rule::RepeatedInFile { code, row }, Lang::Es) => format!("{path} {code:?} también está en la fila {row}"),
        (Rule::RepeatedInFile { code, row }, Lang::Pt) => format!("{path} {code:?} também está na linha {row}"),
        (Rule::RepeatedInFile { code, row }, Lang::En) => format!("{path} {code:?} is also in row {row}"),
        (Rule::Malformed(detail), Lang::Es) => format!("la fila no se puede leer: {detail}"),
        (Rule::Malformed(detail), Lang::Pt) => format!("a linha não pode ser lida: {detail}"),
        (Rule::Malformed(detail), Lang::En) => format!("the row cannot be read: {detail}"),
        (Rule::Cells { found, expected }, Lang::Es) => {
            format!("la fila tiene {found} celdas y el encabezado {expected} columnas")
        }
        (Rule::Cells { found, expected }, Lang::Pt) => {
            format!("a linha tem {found} células e o cabeçalho {expected} colunas")
        }
        (Rule::Cells { found, expected }, Lang::En) => {
            format!("the row has {found} cells and the header {expected} columns")
        }
        (Rule::NotAnObject, Lang::Es) => "la línea no es un objeto JSON".to_owned(),
        (Rule::NotAnObject, Lang::Pt) => "a linha não é um objeto JSON".to_owned(),
        (Rule::NotAnObject, Lang::En) => "the line is not a JSON object".to_owned(),
        (Rule::EmptyFile, Lang::Es) => "el archivo está vacío (0 bytes)".to_owned(),
        (Rule::EmptyFile, Lang::Pt) => "o arquivo está vazio (0 bytes)".to_owned(),
        (Rule::EmptyFile, Lang::En) => "the file is empty (0 bytes)".to_owned(),
        (Rule::NotText(encoding), Lang::Es) => format!("la fila no es texto {encoding} válido"),
        (Rule::NotText(encoding), Lang::Pt) => format!("a linha não é texto {encoding} válido"),
        (Rule::NotText(encoding), Lang::En) => format!("the row is not valid {encoding} text"),
        (Rule::NotAUrl, Lang::Es) => format!("{path} debe ser una URL absoluta, como https://erp.ejemplo.com/webhooks"),
        (Rule::NotAUrl, Lang::Pt) => format!("{path} deve ser uma URL absoluta, como https://erp.exemplo.com/webhooks"),
        (Rule::NotAUrl, Lang::En) => {
            format!("{path} must be an absolute URL, such as https://erp.example.com/webhooks")
        }
        (Rule::SchemeNotAllowed(allowed), Lang::Es) => format!("{path}: este servidor solo entrega a URL {allowed}"),
        (Rule::SchemeNotAllowed(allowed), Lang::Pt) => format!("{path}: este servidor só entrega a URLs {allowed}"),
        (Rule::SchemeNotAllowed(allowed), Lang::En) => format!("{path}: this server only delivers to {allowed} URLs"),
        (Rule::AddressRefused { address, kind }, lang) => address_refused_text(path, address, *kind, lang),
        (Rule::UnknownEventType(kind), Lang::Es) => {
            format!("{path}: {kind:?} no es un tipo de evento; use <recurso>.<acción> o <recurso>.*")
        }
        (Rule::UnknownEventType(kind), Lang::Pt) => {
            format!("{path}: {kind:?} não é um tipo de evento; use <recurso>.<ação> ou <recurso>.*")
        }
        (Rule::UnknownEventType(kind), Lang::En) => {
            format!("{path}: {kind:?} is not an event type; use <resource>.<action> or <resource>.*")
        }
        (Rule::TooLong(max), Lang::Es) => format!("{path} admite como máximo {max} caracteres"),
        (Rule::TooLong(max), Lang::Pt) => format!("{path} admite no máximo {max} caracteres"),
        (Rule::TooLong(max), Lang::En) => format!("{path} takes at most {max} characters"),
        (Rule::Invisible(found), Lang::Es) => format!(
            "{path} contiene un carácter invisible (U+{:04X}); un código no puede tener caracteres que no se ven",
            u32::from(*found)
        ),
        (Rule::Invisible(found), Lang::Pt) => format!(
            "{path} contém um caractere invisível (U+{:04X}); um código não pode ter caracteres que não se veem",
            u32::from(*found)
        ),
        (Rule::Invisible(found), Lang::En) => format!(
            "{path} holds an invisible character (U+{:04X}); a code may not hold characters that show nothing",
            u32::from(*found)
        ),
    }
}

/// A webhook URL whose host is, or resolves to, an address deliveries may not reach (server-side request forgery).
/// The host is named as the caller wrote it, never the addresses a name resolved to: those are the server's network's
/// to keep.
fn address_refused_text(path: &str, host: &str, kind: RefusedAddress, lang: Lang) -> String {
    let what = match (kind, lang) {
        (RefusedAddress::Loopback, Lang::Es) => "de este mismo servidor (loopback)",
        (RefusedAddress::Loopback, Lang::Pt) => "deste mesmo servidor (loopback)",
        (RefusedAddress::Loopback, Lang::En) => "of this server itself (loopback)",
        (RefusedAddress::Private, Lang::Es) => "de una red privada",
        (RefusedAddress::Private, Lang::Pt) => "de uma rede privada",
        (RefusedAddress::Private, Lang::En) => "on a private network",
        (RefusedAddress::LinkLocal, Lang::Es) => "de enlace local (incluye el servicio de metadatos de la nube)",
        (RefusedAddress::LinkLocal, Lang::Pt) => "de enlace local (inclui o serviço de metadados da nuvem)",
        (RefusedAddress::LinkLocal, Lang::En) => "that is link-local (where cloud metadata services answer)",
        (RefusedAddress::SharedAddressSpace, Lang::Es) => "del espacio compartido de proveedores (100.64.0.0/10)",
        (RefusedAddress::SharedAddressSpace, Lang::Pt) => "do espaço compartilhado de provedores (100.64.0.0/10)",
        (RefusedAddress::SharedAddressSpace, Lang::En) => "in providers' shared address space (100.64.0.0/10)",
        (RefusedAddress::Unspecified, Lang::Es) => "no especificada",
        (RefusedAddress::Unspecified, Lang::Pt) => "não especificado",
        (RefusedAddress::Unspecified, Lang::En) => "that is unspecified",
        (RefusedAddress::Multicast, Lang::Es | Lang::Pt) => "multicast",
        (RefusedAddress::Multicast, Lang::En) => "that is multicast",
        (RefusedAddress::Broadcast, Lang::Es | Lang::Pt) => "de broadcast",
        (RefusedAddress::Broadcast, Lang::En) => "that is broadcast",
        (RefusedAddress::Documentation, Lang::Es) => "reservada para documentación",
        (RefusedAddress::Documentation, Lang::Pt) => "reservado para documentação",
        (RefusedAddress::Documentation, Lang::En) => "reserved for documentation",
        (RefusedAddress::Benchmarking, Lang::Es) => "reservada para pruebas de rendimiento",
        (RefusedAddress::Benchmarking, Lang::Pt) => "reservado para testes de desempenho",
        (RefusedAddress::Benchmarking, Lang::En) => "reserved for benchmarking",
        (RefusedAddress::EmbeddedIpv4, Lang::Es) => {
            "IPv4 escrita como IPv6 (mapeada, compatible, NAT64, 6to4 o Teredo; use la dirección del receptor)"
        }
        (RefusedAddress::EmbeddedIpv4, Lang::Pt) => {
            "IPv4 escrito como IPv6 (mapeado, compatível, NAT64, 6to4 ou Teredo; use o endereço do receptor)"
        }
        (RefusedAddress::EmbeddedIpv4, Lang::En) => {
            "that writes an IPv4 address as IPv6 (mapped, compatible, NAT64, 6to4 or Teredo; use the receiver's own)"
        }
        (RefusedAddress::SpecialPurpose, Lang::Es) => "reservada por la IANA para un uso especial",
        (RefusedAddress::SpecialPurpose, Lang::Pt) => "reservado pela IANA para um uso especial",
        (RefusedAddress::SpecialPurpose, Lang::En) => "reserved by IANA for a special purpose",
        (RefusedAddress::Reserved, Lang::Es) => "reservada, sin asignar",
        (RefusedAddress::Reserved, Lang::Pt) => "reservado, não atribuído",
        (RefusedAddress::Reserved, Lang::En) => "that is reserved and unassigned",
    };
    // An IP literal is the address; a name is said to resolve to one, without saying which.
    let literal = host.parse::<std::net::IpAddr>().is_ok();
    match (lang, literal) {
        (Lang::Es, true) => {
            format!("{path}: {host} es una dirección {what}; los webhooks solo se entregan a direcciones públicas")
        }
        (Lang::Es, false) => format!(
            "{path}: {host} resuelve a una dirección {what}; los webhooks solo se entregan a direcciones públicas"
        ),
        (Lang::Pt, true) => {
            format!("{path}: {host} é um endereço {what}; os webhooks só são entregues a endereços públicos")
        }
        (Lang::Pt, false) => {
            format!("{path}: {host} resolve para um endereço {what}; os webhooks só são entregues a endereços públicos")
        }
        (Lang::En, true) => {
            format!("{path}: {host} is an address {what}; webhooks are delivered to public addresses only")
        }
        (Lang::En, false) => {
            format!("{path}: {host} resolves to an address {what}; webhooks are delivered to public addresses only")
        }
    }
}

/// What a field of the wrong type should have held.
fn expected_text(expected: Expected, lang: Lang) -> &'static str {
    match (expected, lang) {
        (Expected::Text, Lang::Es) => "un texto",
        (Expected::Text, Lang::Pt) => "um texto",
        (Expected::Text, Lang::En) => "text",
        (Expected::Number, Lang::Es) => "un número",
        (Expected::Number, Lang::Pt) => "um número",
        (Expected::Number, Lang::En) => "a number",
        (Expected::Integer, Lang::Es) => "un número entero",
        (Expected::Integer, Lang::Pt) => "um número inteiro",
        (Expected::Integer, Lang::En) => "a whole number",
        (Expected::Boolean, Lang::Es) => "un booleano (true o false, 1 o 0, sí o no)",
        (Expected::Boolean, Lang::Pt) => "um booleano (true ou false, 1 ou 0, sim ou não)",
        (Expected::Boolean, Lang::En) => "a boolean (true or false, 1 or 0, yes or no)",
        (Expected::Date, Lang::Es) => "una fecha AAAA-MM-DD",
        (Expected::Date, Lang::Pt) => "uma data AAAA-MM-DD",
        (Expected::Date, Lang::En) => "a date YYYY-MM-DD",
    }
}

/// The homonym rule's message: a line's `cultivation.local_id` is not a campaign, and what the id is instead.
fn not_a_campaign_text(path: &str, id: i64, species: bool, cultivation: bool, lang: Lang) -> String {
    let (rule, as_species, as_cultivation) = match lang {
        Lang::Es => (
            format!("{path}: {id} no es una campaña de su sociedad; cultivation.local_id lleva el id de una campaña (campaigns.id), no el de una especie ni el de un cultivo"),
            format!(" ({id} es una especie del catálogo de cultivos)"),
            format!(" ({id} es un registro de /cultivations; envíe su campaign_id)"),
        ),
        Lang::Pt => (
            format!("{path}: {id} não é uma safra da sua sociedade; cultivation.local_id leva o id de uma safra (campaigns.id), não o de uma espécie nem o de uma cultura"),
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
    if species {
        text.push_str(&as_species);
    }
    if cultivation {
        text.push_str(&as_cultivation);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependants_agree_with_their_count_and_name_the_resource() {
        assert_eq!(
            dependants_text("plots", 1, Lang::Es),
            "No se puede eliminar: tiene 1 lote activo (plots)."
        );
        assert_eq!(
            dependants_text("campaigns", 3, Lang::Es),
            "No se puede eliminar: tiene 3 campañas activas (campaigns)."
        );
        assert_eq!(
            dependants_text("plots", 2, Lang::Pt),
            "Não é possível excluir: tem 2 talhões ativos (plots)."
        );
        assert_eq!(
            dependants_text("devices", 1, Lang::En),
            "Cannot delete: it still has 1 live device (devices)."
        );
    }

    #[test]
    fn a_batch_counts_its_failing_items_and_names_the_first() {
        let violations: Vec<Violation> = (0..25)
            .map(|index| Violation::new("device_id", Rule::Unknown(9)).in_item(index))
            .collect();
        let text = invalid_text("device_events", &violations, Lang::En);
        assert!(
            text.starts_with("25 items are not valid; none was stored: [0].device_id: 9 "),
            "{text}"
        );
        assert!(
            text.contains("[19].device_id") && !text.contains("[20].device_id"),
            "{text}"
        );
        assert!(text.ends_with("; and 5 more."), "{text}");
        let one = invalid_text("device_events", &violations[..1], Lang::Es);
        assert!(
            one.starts_with("1 elemento no es válido; no se guardó ninguno: [0].device_id"),
            "{one}"
        );
    }

    #[test]
    fn a_single_records_violations_lead_with_their_paths() {
        let violations = [
            Violation::new("name", Rule::Blank),
            Violation::new("farmer_id", Rule::Unknown(7)),
        ];
        assert_eq!(
            invalid_text("establishments", &violations, Lang::Pt),
            "name é obrigatório e não pode estar vazio; farmer_id: 7 não existe ou não está disponível para a sua \
             sociedade."
        );
    }
}
