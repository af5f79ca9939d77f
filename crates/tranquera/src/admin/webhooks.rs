//! `tranquera admin webhook`: an operator registers, lists, rotates and deletes a society's webhook endpoints, with
//! the rules and answers of the API's routes. The secret is printed by `create` and `rotate` only.

use clap::Subcommand;
use domain::webhooks::{EndpointCommand, UrlPolicy};
use domain::{AuditFilters, Lang, NextPagePolicy, PageRequest};
use server::i18n::Msg;
use store::webhooks::{NewEndpoint, WebhookEndpoints};
use store::Store;

use crate::settings::Failure;

/// What `admin webhook` does.
#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// List a society's endpoints: id, state, URL, types, description.
    List {
        /// The society.
        #[arg(long)]
        society: i64,
    },
    /// Register an endpoint; prints its id and its signing secret, which is not shown again.
    Create {
        /// The society.
        #[arg(long)]
        society: i64,
        /// Where deliveries go; `https://` to a public address unless the flags below allow more.
        #[arg(long)]
        url: String,
        /// An event type to deliver (`work_order.created`, `plot.*`); repeat for several; none for every type.
        #[arg(long = "type")]
        types: Vec<String>,
        /// What the endpoint is for.
        #[arg(long)]
        description: Option<String>,
        /// Allow an `http://` URL (the serving processes must allow it too, or they refuse to deliver).
        #[arg(long)]
        allow_http: bool,
        /// Allow a loopback, private or link-local address (the serving processes must allow it too).
        #[arg(long)]
        allow_private_addresses: bool,
    },
    /// Give an endpoint a new secret; prints it. The previous one also signs deliveries for 24 hours.
    Rotate {
        /// The society.
        #[arg(long)]
        society: i64,
        /// The endpoint.
        #[arg(long)]
        id: i64,
    },
    /// Delete an endpoint: nothing more is delivered to it.
    Delete {
        /// The society.
        #[arg(long)]
        society: i64,
        /// The endpoint.
        #[arg(long)]
        id: i64,
    },
}

/// Runs a webhook command.
pub async fn run(store: &Store, command: WebhookCommand) -> Result<(), Failure> {
    let society = match &command {
        WebhookCommand::List { society }
        | WebhookCommand::Create { society, .. }
        | WebhookCommand::Rotate { society, .. }
        | WebhookCommand::Delete { society, .. } => *society,
    };
    let scope = store.admin().scope(society).await?;
    match command {
        WebhookCommand::List { .. } => {
            let mut page = PageRequest { page: 1, size: 500 };
            loop {
                let listed = store
                    .list::<WebhookEndpoints>(&scope, &AuditFilters::default(), page, NextPagePolicy::Null)
                    .await?;
                for endpoint in &listed.items {
                    println!(
                        "{}\t{}\t{}\t{}\t{}",
                        endpoint.id,
                        endpoint.state,
                        endpoint.url,
                        endpoint.types.join(","),
                        endpoint.description.as_deref().unwrap_or_default()
                    );
                }
                match listed.next_page {
                    Some(next) => page.page = next,
                    None => break,
                }
            }
        }
        WebhookCommand::Create {
            url,
            types,
            description,
            allow_http,
            allow_private_addresses,
            ..
        } => {
            let command = EndpointCommand {
                url,
                types,
                description,
            };
            let policy = UrlPolicy {
                allow_http,
                allow_private_addresses,
            };
            let url = command.check(policy).map_err(|refusal| {
                Msg::Refused {
                    resource: "webhook_endpoints",
                    id: String::new(),
                    refusal,
                }
                .text(Lang::En)
            })?;
            let endpoint = NewEndpoint {
                url: url.as_str(),
                types: &command.types,
                description: command.description.as_deref(),
            };
            let created = store
                .create_webhook_endpoint(&scope, &endpoint)
                .await?
                .map_err(|_| Msg::TooManyWebhookEndpoints(domain::webhooks::MAX_ENDPOINTS).text(Lang::En))?;
            println!("{}\t{}", created.endpoint.id, created.secret);
        }
        WebhookCommand::Rotate { id, .. } => match store.rotate_webhook_secret(&scope, id).await? {
            Some(rotated) => println!("{}\t{}", rotated.endpoint.id, rotated.secret),
            None => return Err(format!("society {society} has no live webhook endpoint {id}").into()),
        },
        WebhookCommand::Delete { id, .. } => {
            store
                .delete_logically::<WebhookEndpoints>(&scope, id)
                .await?
                .map_err(|_| format!("society {society} has no webhook endpoint {id}"))?;
            println!("webhook endpoint {id} deleted");
        }
    }
    Ok(())
}
