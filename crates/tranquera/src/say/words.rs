//! The command line's messages, each in Spanish, Portuguese and English: one table, so a message is never written in
//! one language only.

use domain::Lang;

/// A message, before it is put into words.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Say<'a> {
    /// The API refused a call: its status, its envelope's code (shown when it is not the status), its `reason`, and
    /// its message, already in the language asked.
    ApiAnswered {
        status: u16,
        code: i64,
        reason: Option<&'a str>,
        message: &'a str,
    },
    /// A call got no answer in time, on every attempt.
    TimedOut,
    /// The API could not be reached (the cause).
    Unreachable(&'a str),
    /// A successful answer of an unexpected shape.
    UnexpectedAnswer { path: &'a str, reason: &'a str },
    /// A call that needs a session was made before login.
    NotLoggedIn,
    /// A client setting that cannot work.
    BadClientConfig(&'a str),
    /// No credentials in the environment and no terminal to ask for them.
    NoCredentials,
    /// The prompt for the email.
    EmailPrompt,
    /// The prompt for the password.
    PasswordPrompt,
    /// `listen` is following the feed, signing with this secret.
    Ready(&'a str),
    /// `listen` stopped; this cursor carries on.
    Stopped(&'a str),
    /// `listen` lost the API (why) and tries again in 5 seconds.
    Reconnecting(&'a str),
    /// `--after` is older than the feed keeps (the API's error).
    CursorExpired(&'a str),
    /// The server has no event feed (the API's error).
    NoFeed(&'a str),
    /// An event could not be turned back into JSON.
    Unserializable { event: i64, error: &'a str },
    /// A forward answered with a status other than 2xx.
    ForwardFailed,
    /// A forward that is the retry of a failed one.
    Retry,
    /// The local handler did not answer within the delivery time-out.
    NoAnswer,
    /// Nothing listens at the local URL.
    ConnectionRefused,
    /// `--resource` names no list; the known ones.
    UnknownResource { name: &'a str, known: &'a str },
    /// `--resource` used a list's former name.
    RenamedResource { old: &'a str, new: &'a str },
    /// A folder's table, state and files of a list were renamed to the list's present name.
    RenamedInFolder { old: &'a str, new: &'a str },
    /// The state file cannot be read (the path, why).
    BadStateFile { path: &'a str, error: &'a str },
    /// A list the account cannot read was skipped (why).
    Skipped { resource: &'a str, why: &'a str },
    /// The server answered this status to a list.
    ServerAnswered(&'a str),
    /// A list failed, and the run stops (why).
    ResourceFailed { resource: &'a str, error: &'a str },
    /// The run stopped at a list's failure (the list and why).
    SyncStopped(&'a str),
    /// The saved feed cursor is past the feed's retention.
    FeedCursorExpired,
    /// A record without a numeric id, in this list.
    NoNumericId(&'a str),
    /// A list's name that cannot be a table's.
    BadTableName(&'a str),
    /// The run's last line.
    Synced {
        resources: usize,
        out: &'a str,
        transferred: u64,
        changed: u64,
        deleted: u64,
        seconds: f64,
    },
    /// What a list's pass did.
    Changes { changed: u64, deleted: u64 },
    /// A first sync of a list.
    Full,
    /// A sync of what changed since the last one.
    Incremental,
    /// A progress bar's text: how far, in pages.
    Pages { mode: &'a str, pages: u64 },
    /// A progress bar's text when its list failed.
    FailedAfter { mode: &'a str, pages: u64 },
    /// A plain progress line: a page stored.
    PageLine {
        verb: &'a str,
        resource: &'a str,
        pages: u64,
        items: u64,
        total: u64,
    },
    /// A plain progress line: a list done.
    DoneLine {
        verb: &'a str,
        resource: &'a str,
        summary: &'a str,
    },
    /// The word for records, in a progress bar.
    Items,
    /// `demo` or `serve` cannot listen on an address (why); `flags` name where to give another.
    CannotListen {
        address: &'a str,
        why: &'a str,
        flags: &'a str,
    },
    /// The address is taken by another program.
    AddressInUse,
    /// The address may not be bound by this user.
    AddressForbidden,
    /// The address is none of this machine's.
    AddressNotHere,
}

impl Say<'_> {
    /// The message in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        use Lang::{En, Es, Pt};
        match (*self, lang) {
            (
                Say::ApiAnswered {
                    status,
                    code,
                    reason,
                    message,
                },
                lang,
            ) => {
                let answered = match lang {
                    Es => "la API respondió",
                    Pt => "a API respondeu",
                    En => "the API answered",
                };
                let code = if code == i64::from(status) {
                    String::new()
                } else {
                    match lang {
                        Es => format!(" (código {code})"),
                        Pt => format!(" (código {code})"),
                        En => format!(" (code {code})"),
                    }
                };
                let reason = match (reason, lang) {
                    (None, _) => String::new(),
                    (Some(reason), Es | Pt) => format!(" (motivo: {reason})"),
                    (Some(reason), En) => format!(" (reason: {reason})"),
                };
                format!("{answered} {status}{code}: {message}{reason}")
            }
            (Say::TimedOut, Es) => "la API no respondió a tiempo".into(),
            (Say::TimedOut, Pt) => "a API não respondeu a tempo".into(),
            (Say::TimedOut, En) => "the API did not answer in time".into(),
            (Say::Unreachable(why), Es) => format!("no se pudo llegar a la API: {why}"),
            (Say::Unreachable(why), Pt) => format!("não foi possível chegar à API: {why}"),
            (Say::Unreachable(why), En) => format!("the API could not be reached: {why}"),
            (Say::UnexpectedAnswer { path, reason }, Es) => format!("respuesta inesperada de {path}: {reason}"),
            (Say::UnexpectedAnswer { path, reason }, Pt) => format!("resposta inesperada de {path}: {reason}"),
            (Say::UnexpectedAnswer { path, reason }, En) => format!("unexpected answer from {path}: {reason}"),
            (Say::NotLoggedIn, Es) => "no hay sesión iniciada".into(),
            (Say::NotLoggedIn, Pt) => "não há sessão iniciada".into(),
            (Say::NotLoggedIn, En) => "not logged in".into(),
            (Say::BadClientConfig(detail), Es) => format!("configuración del cliente inválida: {detail}"),
            (Say::BadClientConfig(detail), Pt) => format!("configuração do cliente inválida: {detail}"),
            (Say::BadClientConfig(detail), En) => format!("invalid client configuration: {detail}"),
            (Say::NoCredentials, Es) => {
                "defina TRANQUERA_EMAIL y TRANQUERA_PASSWORD (no hay una terminal donde pedirlos)".into()
            }
            (Say::NoCredentials, Pt) => {
                "defina TRANQUERA_EMAIL e TRANQUERA_PASSWORD (não há um terminal onde pedi-los)".into()
            }
            (Say::NoCredentials, En) => {
                "set TRANQUERA_EMAIL and TRANQUERA_PASSWORD (no terminal to ask them on)".into()
            }
            (Say::EmailPrompt, _) => "Email: ".into(),
            (Say::PasswordPrompt, Es) => "Contraseña: ".into(),
            (Say::PasswordPrompt, Pt) => "Senha: ".into(),
            (Say::PasswordPrompt, En) => "Password: ".into(),
            (Say::Ready(secret), Es) => {
                format!("¡Listo! El secreto para verificar las firmas es {secret} (^C para salir)")
            }
            (Say::Ready(secret), Pt) => {
                format!("Pronto! O segredo para verificar as assinaturas é {secret} (^C para sair)")
            }
            (Say::Ready(secret), En) => format!("Ready! Your webhook signing secret is {secret} (^C to quit)"),
            (Say::Stopped(cursor), Es) => format!("Detenido. Para seguir donde quedó: --after {cursor}"),
            (Say::Stopped(cursor), Pt) => format!("Parado. Para continuar de onde parou: --after {cursor}"),
            (Say::Stopped(cursor), En) => format!("Stopped. Resume with --after {cursor}"),
            (Say::Reconnecting(why), Es) => format!("no se pudo llegar a la API ({why}); se reintenta en 5 s"),
            (Say::Reconnecting(why), Pt) => format!("não foi possível chegar à API ({why}); nova tentativa em 5 s"),
            (Say::Reconnecting(why), En) => format!("the API could not be reached ({why}); trying again in 5 s"),
            (Say::CursorExpired(error), Es) => {
                format!("el cursor es más antiguo de lo que el feed conserva ({error}); empiece de nuevo sin --after")
            }
            (Say::CursorExpired(error), Pt) => {
                format!("o cursor é mais antigo do que o feed guarda ({error}); comece de novo sem --after")
            }
            (Say::CursorExpired(error), En) => {
                format!("the cursor is older than the feed keeps ({error}); start again without --after")
            }
            (Say::NoFeed(error), Es) => format!("este servidor no ofrece el feed de eventos ({error})"),
            (Say::NoFeed(error), Pt) => format!("este servidor não oferece o feed de eventos ({error})"),
            (Say::NoFeed(error), En) => format!("this server offers no event feed ({error})"),
            (Say::Unserializable { event, error }, Es) => format!("el evento {event} no se puede serializar: {error}"),
            (Say::Unserializable { event, error }, Pt) => format!("o evento {event} não pode ser serializado: {error}"),
            (Say::Unserializable { event, error }, En) => format!("event {event} does not serialize: {error}"),
            (Say::ForwardFailed, Es) => "falló".into(),
            (Say::ForwardFailed, Pt) => "falhou".into(),
            (Say::ForwardFailed, En) => "failed".into(),
            (Say::Retry, Es) => "(reintento)".into(),
            (Say::Retry, Pt) => "(nova tentativa)".into(),
            (Say::Retry, En) => "(retry)".into(),
            (Say::NoAnswer, Es) => "sin respuesta en 10 s".into(),
            (Say::NoAnswer, Pt) => "sem resposta em 10 s".into(),
            (Say::NoAnswer, En) => "no answer within 10 s".into(),
            (Say::ConnectionRefused, Es) => "conexión rechazada: ¿está en marcha su receptor?".into(),
            (Say::ConnectionRefused, Pt) => "conexão recusada: o seu receptor está rodando?".into(),
            (Say::ConnectionRefused, En) => "connection refused: is your handler running?".into(),
            (Say::UnknownResource { name, known }, Es) => {
                format!("recurso desconocido {name:?}; los conocidos: {known}")
            }
            (Say::UnknownResource { name, known }, Pt) => {
                format!("recurso desconhecido {name:?}; os conhecidos: {known}")
            }
            (Say::UnknownResource { name, known }, En) => format!("unknown resource {name:?}; known: {known}"),
            (Say::RenamedResource { old, new }, Es) => {
                format!(
                    "--resource {old} ahora se llama {new}, como su ruta; el nombre anterior se acepta por un tiempo"
                )
            }
            (Say::RenamedResource { old, new }, Pt) => {
                format!(
                    "--resource {old} agora se chama {new}, como o seu caminho; o nome antigo é aceito por um tempo"
                )
            }
            (Say::RenamedResource { old, new }, En) => {
                format!("--resource {old} is now {new}, as its path names it; the old name is accepted for a while")
            }
            (Say::RenamedInFolder { old, new }, Es) => format!(
                "{old} ahora se llama {new}, como su ruta: su tabla en tranquera.sqlite, su estado y sus archivos \
                 se renombraron, sin volver a descargar nada"
            ),
            (Say::RenamedInFolder { old, new }, Pt) => format!(
                "{old} agora se chama {new}, como o seu caminho: a sua tabela em tranquera.sqlite, o seu estado e os \
                 seus arquivos foram renomeados, sem baixar nada de novo"
            ),
            (Say::RenamedInFolder { old, new }, En) => format!(
                "{old} is now {new}, as its path names it: its table in tranquera.sqlite, its state and its files \
                 were renamed, nothing fetched again"
            ),
            (Say::BadStateFile { path, error }, Es) => {
                format!("{path}: no es un archivo de estado de sync ({error}); bórrelo para sincronizar desde cero")
            }
            (Say::BadStateFile { path, error }, Pt) => {
                format!("{path}: não é um arquivo de estado do sync ({error}); apague-o para sincronizar do zero")
            }
            (Say::BadStateFile { path, error }, En) => {
                format!("{path}: not a sync state file ({error}); delete it to sync from scratch")
            }
            (Say::Skipped { resource, why }, Es) => format!("sync {resource}: omitido, {why}"),
            (Say::Skipped { resource, why }, Pt) => format!("sync {resource}: ignorado, {why}"),
            (Say::Skipped { resource, why }, En) => format!("sync {resource}: skipped, {why}"),
            (Say::ServerAnswered(status), Es) => format!("el servidor respondió {status}"),
            (Say::ServerAnswered(status), Pt) => format!("o servidor respondeu {status}"),
            (Say::ServerAnswered(status), En) => format!("the server answered {status}"),
            (Say::ResourceFailed { resource, error }, _) => format!("sync {resource}: {error}"),
            (Say::SyncStopped(error), Es) => {
                format!("la sincronización se detuvo en {error}; ejecútela de nuevo para retomarla")
            }
            (Say::SyncStopped(error), Pt) => format!("a sincronização parou em {error}; rode de novo para retomá-la"),
            (Say::SyncStopped(error), En) => format!("sync stopped at {error}; run again to resume"),
            (Say::FeedCursorExpired, Es) => "el cursor del feed guardado es más antiguo de lo que el feed conserva: \
                 se resincroniza cada lista recorriéndola"
                .into(),
            (Say::FeedCursorExpired, Pt) => "o cursor do feed salvo é mais antigo do que o feed guarda: cada lista é \
                 ressincronizada percorrendo-a"
                .into(),
            (Say::FeedCursorExpired, En) => {
                "the saved feed cursor is older than the feed keeps: resyncing every list by walking it".into()
            }
            (Say::NoNumericId(resource), Es) => format!("{resource}: un registro sin id numérico"),
            (Say::NoNumericId(resource), Pt) => format!("{resource}: um registro sem id numérico"),
            (Say::NoNumericId(resource), En) => format!("{resource}: a record without a numeric id"),
            (Say::BadTableName(name), Es) => format!("nombre de tabla inválido para el espejo: {name:?}"),
            (Say::BadTableName(name), Pt) => format!("nome de tabela inválido para o espelho: {name:?}"),
            (Say::BadTableName(name), En) => format!("invalid mirror table name {name:?}"),
            (
                Say::Synced {
                    resources,
                    out,
                    transferred,
                    changed,
                    deleted,
                    seconds,
                },
                Es,
            ) => format!(
                "{resources} recursos sincronizados en {out}: {transferred} registros transferidos ({changed} \
                 cambiados, {deleted} borrados) en {seconds:.1} s"
            ),
            (
                Say::Synced {
                    resources,
                    out,
                    transferred,
                    changed,
                    deleted,
                    seconds,
                },
                Pt,
            ) => format!(
                "{resources} recursos sincronizados em {out}: {transferred} registros transferidos ({changed} \
                 alterados, {deleted} excluídos) em {seconds:.1} s"
            ),
            (
                Say::Synced {
                    resources,
                    out,
                    transferred,
                    changed,
                    deleted,
                    seconds,
                },
                En,
            ) => format!(
                "synced {resources} resources into {out}: {transferred} records transferred ({changed} changed, \
                 {deleted} deleted) in {seconds:.1}s"
            ),
            (Say::Changes { changed, deleted }, Es) => format!("{changed} cambiados, {deleted} borrados"),
            (Say::Changes { changed, deleted }, Pt) => format!("{changed} alterados, {deleted} excluídos"),
            (Say::Changes { changed, deleted }, En) => format!("{changed} changed, {deleted} deleted"),
            (Say::Full, Es | Pt) => "completo".into(),
            (Say::Full, En) => "full".into(),
            (Say::Incremental, _) => "incremental".into(),
            (Say::Pages { mode, pages }, Es | Pt) => format!("{mode}, {pages} páginas"),
            (Say::Pages { mode, pages }, En) => format!("{mode}, {pages} pages"),
            (Say::FailedAfter { mode, pages }, Es) => format!("{mode}, falló tras {pages} páginas"),
            (Say::FailedAfter { mode, pages }, Pt) => format!("{mode}, falhou após {pages} páginas"),
            (Say::FailedAfter { mode, pages }, En) => format!("{mode}, failed after {pages} pages"),
            (
                Say::PageLine {
                    verb,
                    resource,
                    pages,
                    items,
                    total,
                },
                Es | Pt,
            ) => {
                format!("{verb} {resource}: página {pages}, {items}/{total} registros")
            }
            (
                Say::PageLine {
                    verb,
                    resource,
                    pages,
                    items,
                    total,
                },
                En,
            ) => {
                format!("{verb} {resource}: page {pages}, {items}/{total} items")
            }
            (
                Say::DoneLine {
                    verb,
                    resource,
                    summary,
                },
                Es,
            ) => format!("{verb} {resource}: listo, {summary}"),
            (
                Say::DoneLine {
                    verb,
                    resource,
                    summary,
                },
                Pt,
            ) => format!("{verb} {resource}: pronto, {summary}"),
            (
                Say::DoneLine {
                    verb,
                    resource,
                    summary,
                },
                En,
            ) => format!("{verb} {resource}: done, {summary}"),
            (Say::Items, Es | Pt) => "registros".into(),
            (Say::Items, En) => "items".into(),
            (Say::CannotListen { address, why, flags }, Es) => {
                format!("no se puede escuchar en {address}: {why}; elija otra dirección con {flags}")
            }
            (Say::CannotListen { address, why, flags }, Pt) => {
                format!("não é possível escutar em {address}: {why}; escolha outro endereço com {flags}")
            }
            (Say::CannotListen { address, why, flags }, En) => {
                format!("cannot listen on {address}: {why}; choose another address with {flags}")
            }
            (Say::AddressInUse, Es) => "la dirección ya está en uso".into(),
            (Say::AddressInUse, Pt) => "o endereço já está em uso".into(),
            (Say::AddressInUse, En) => "the address is already in use".into(),
            (Say::AddressForbidden, Es) => "este usuario no puede usar esa dirección".into(),
            (Say::AddressForbidden, Pt) => "este usuário não pode usar esse endereço".into(),
            (Say::AddressForbidden, En) => "this user may not use that address".into(),
            (Say::AddressNotHere, Es) => "la dirección no es de esta máquina".into(),
            (Say::AddressNotHere, Pt) => "o endereço não é desta máquina".into(),
            (Say::AddressNotHere, En) => "the address is not one of this machine's".into(),
        }
    }
}
