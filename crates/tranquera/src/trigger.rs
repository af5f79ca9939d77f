//! `tranquera trigger EVENT_TYPE`: makes a real change in the demo's database that emits an event of that type, like
//! Stripe's `stripe trigger`, so that an integrator can see a webhook or a feed page carry one without waiting for
//! it. It opens the database the way `tranquera demo` and the operators' `admin` do (`--database`, the demo's file
//! by default) and changes the society's latest record of the resource through the store, as an operator's change
//! would be made ([`store::trigger`]): a copy for `created`, a touch of `modified_at` for `updated`, a soft deletion
//! for `deleted`, and a job's or a webhook endpoint's state for their own actions. It prints what it changed and
//! the events the feed now holds for it, with each event's id and the cursor after it, in the command's language.

use clap::Args;
use domain::events::{event_types, EventCursor, EventTypes, FeedStart};
use domain::Lang;
use store::trigger::Triggered;
use store::webhooks::NewEndpoint;
use store::{Scope, Store};

use crate::say::lang;
use crate::settings::{close, connect, DatabaseArgs, Failure, SqliteSynchronous};

/// Flags of `tranquera trigger`.
#[derive(Debug, Args)]
#[command(after_help = examples())]
pub struct TriggerArgs {
    /// The event type to emit, `<resource>.<action>`: every type is listed below.
    #[arg(value_name = "EVENT_TYPE")]
    event_type: String,
    /// The demo database, as `tranquera demo --database` names it.
    #[arg(long = "database", default_value = "sqlite://tranquera-demo.sqlite")]
    database: String,
    /// The society whose record changes; by default the demo's first (the Argentine one).
    #[arg(long)]
    society: Option<i64>,
}

/// The help's list of every event type, each with the command that emits it.
fn examples() -> String {
    let mut text = String::from("Event types, one example each:\n");
    for event_type in event_types() {
        text.push_str(&format!("  tranquera trigger {event_type}\n"));
    }
    text
}

/// Makes the change and prints it with its events.
pub async fn run(args: TriggerArgs) -> Result<(), Failure> {
    let (resource, action) = args
        .event_type
        .split_once('.')
        .filter(|_| event_types().contains(&args.event_type))
        .ok_or_else(|| format!("{}: {}\n\n{}", args.event_type, words(lang()).unknown_type, examples()))?;
    let database = DatabaseArgs {
        url: args.database.clone(),
        db_max_connections: 4,
        db_acquire_timeout: 5,
        sqlite_synchronous: SqliteSynchronous::Normal,
    };
    let store = connect(&database, None).await?;
    let outcome = trigger(&store, args.society, resource, action, &args.event_type).await;
    close(&store).await;
    outcome
}

async fn trigger(
    store: &Store,
    society: Option<i64>,
    resource: &str,
    action: &str,
    event_type: &str,
) -> Result<(), Failure> {
    let society_id = match society {
        Some(id) => id,
        None => store
            .admin()
            .societies()
            .await?
            .iter()
            .map(|society| society.id)
            .min()
            .ok_or_else(|| words(lang()).no_society)?,
    };
    let scope = store.admin().scope(society_id).await?;
    let types = EventTypes::parse(event_type)?;
    let before = head(store, &scope).await?;
    let changed = if event_type == "webhook_endpoint.created" {
        endpoint(store, &scope).await?
    } else {
        match store.trigger_change(society_id, resource, action).await? {
            Some(changed) => changed,
            // The demo seeds no endpoint: one is made first, as an operator would.
            None if resource == "webhook_endpoint" => {
                endpoint(store, &scope).await?;
                store
                    .trigger_change(society_id, resource, action)
                    .await?
                    .ok_or_else(|| format!("{} {resource} ({society_id})", words(lang()).nothing_to_change))?
            }
            None => return Err(format!("{} {resource} ({society_id})", words(lang()).nothing_to_change).into()),
        }
    };
    println!("{}", changed_line(lang(), &changed, society_id));
    let page = store
        .event_feed(&scope, FeedStart::After(before), &types, 100)
        .await?
        .map_err(|refusal| format!("{refusal:?}"))?;
    let event = page
        .events
        .iter()
        .rev()
        .find(|event| event.resource_id == changed.id)
        .ok_or_else(|| format!("{event_type}: {}", words(lang()).no_event))?;
    println!("{}", event_line(lang(), event_type, event.id, &page.next.to_string()));
    Ok(())
}

/// Registers a webhook endpoint for the society the way `tranquera admin webhook create` does, at a local address
/// where nothing listens (the discard port): its deliveries fail and are retried, which is what a sandbox shows.
async fn endpoint(store: &Store, scope: &Scope) -> Result<Triggered, Failure> {
    let endpoint = NewEndpoint {
        url: "http://127.0.0.1:9/tranquera-trigger",
        types: &[],
        description: Some("tranquera trigger"),
    };
    let created = store
        .create_webhook_endpoint(scope, &endpoint)
        .await?
        .map_err(|_| format!("{:?}", domain::webhooks::MAX_ENDPOINTS))?;
    Ok(Triggered {
        table: "webhook_endpoints",
        id: created.endpoint.id,
        action: "created",
    })
}

/// The cursor at the head of the society's feed: the next read after it sees only what follows.
async fn head(store: &Store, scope: &Scope) -> Result<EventCursor, Failure> {
    let page = store
        .event_feed(scope, FeedStart::Now, &EventTypes::default(), 1)
        .await?
        .map_err(|refusal| format!("{refusal:?}"))?;
    Ok(page.next)
}

/// The command's texts in one language.
struct Words {
    changed: &'static str,
    record: &'static str,
    of_society: &'static str,
    event: &'static str,
    cursor: &'static str,
    no_society: &'static str,
    nothing_to_change: &'static str,
    no_event: &'static str,
    unknown_type: &'static str,
}

fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::Es => &Words {
            changed: "Cambiado",
            record: "registro",
            of_society: "de la sociedad",
            event: "Evento",
            cursor: "cursor siguiente",
            no_society: "la base de datos no tiene sociedades: ¿es la de tranquera demo?",
            nothing_to_change: "no hay un registro vivo que cambiar de",
            no_event: "el feed no muestra el evento del cambio",
            unknown_type: "no es un tipo de evento",
        },
        Lang::Pt => &Words {
            changed: "Alterado",
            record: "registro",
            of_society: "da sociedade",
            event: "Evento",
            cursor: "cursor seguinte",
            no_society: "o banco de dados não tem sociedades: é o do tranquera demo?",
            nothing_to_change: "não há um registro ativo a alterar de",
            no_event: "o feed não mostra o evento da alteração",
            unknown_type: "não é um tipo de evento",
        },
        Lang::En => &Words {
            changed: "Changed",
            record: "record",
            of_society: "of society",
            event: "Event",
            cursor: "next cursor",
            no_society: "the database has no society: is it tranquera demo's?",
            nothing_to_change: "there is no live record to change of",
            no_event: "the feed shows no event of the change",
            unknown_type: "is not an event type",
        },
    }
}

/// What was changed, as one line.
fn changed_line(lang: Lang, changed: &Triggered, society_id: i64) -> String {
    let words = words(lang);
    format!(
        "{} ({}): {} {} {} {society_id} ({}).",
        words.changed, changed.action, words.record, changed.id, words.of_society, changed.table
    )
}

/// The event the change emitted, as one line.
fn event_line(lang: Lang, event_type: &str, id: i64, cursor: &str) -> String {
    let words = words(lang);
    format!("{} {id}: {event_type}; {}: {cursor}", words.event, words.cursor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_gives_an_example_of_every_type() {
        let help = examples();
        for event_type in event_types() {
            assert!(
                help.contains(&format!("tranquera trigger {event_type}\n")),
                "{event_type}"
            );
        }
    }

    #[test]
    fn the_lines_speak_each_language() {
        let changed = Triggered {
            table: "plots",
            id: 9,
            action: "updated",
        };
        assert_eq!(
            changed_line(Lang::Pt, &changed, 2),
            "Alterado (updated): registro 9 da sociedade 2 (plots)."
        );
        assert_eq!(
            event_line(Lang::Es, "plot.updated", 41, "abc"),
            "Evento 41: plot.updated; cursor siguiente: abc"
        );
    }
}
