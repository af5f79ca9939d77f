//! `tranquera admin`: what operators create outside the API. Passwords come from `TRANQUERA_PASSWORD` or standard
//! input, never from a flag (flags end up in shell history and process lists).
//!
//! Bulk loads and exports of master data live in [`import`] and [`export`], reading files through [`files`];
//! webhook endpoints in [`webhooks`].

mod export;
mod files;
mod import;
mod webhooks;

use std::io::{BufRead, IsTerminal, Write};

use clap::{Args, Subcommand};
use store::admin::{Admin, NewFarmer, NewUser};

use crate::settings::{connect, DatabaseArgs, Failure};

/// Flags of `tranquera admin`.
#[derive(Debug, Args)]
pub struct AdminArgs {
    #[command(flatten)]
    database: DatabaseArgs,
    #[command(subcommand)]
    command: AdminCommand,
}

#[derive(Debug, Subcommand)]
enum AdminCommand {
    /// Societies: the root of data isolation.
    #[command(subcommand)]
    Society(SocietyCommand),
    /// Accounts.
    #[command(subcommand)]
    User(UserCommand),
    /// Farmers (producers), which third parties can only read.
    #[command(subcommand)]
    Farmer(FarmerCommand),
    /// Access and refresh tokens.
    #[command(subcommand)]
    Tokens(TokensCommand),
    /// API keys for the optional X-SVC-APIKEY header.
    #[command(subcommand, name = "api-key")]
    ApiKey(ApiKeyCommand),
    /// The reference catalogues this release ships (species, units, products, cycles, …).
    #[command(subcommand)]
    Reference(ReferenceCommand),
    /// Load a file of master data (CSV or JSONL) into a society, or a country's catalogue: whole, or nothing.
    Import(import::ImportArgs),
    /// Write a resource's records in the format `import` reads.
    Export(export::ExportArgs),
    /// A society's webhook endpoints.
    #[command(subcommand)]
    Webhook(webhooks::WebhookCommand),
}

#[derive(Debug, Subcommand)]
enum ReferenceCommand {
    /// The releases of reference data applied to this database.
    Status,
    /// Turn a catalogue row back on.
    Activate {
        /// The catalogue's table, e.g. formulateds or master_campaign_cycles.
        catalogue: String,
        /// The row's reference key (e.g. ar.product.roundup-full-ii), or its id.
        row: String,
    },
    /// Turn a catalogue row off without deleting it: it stays listed with `active` false, and later releases leave
    /// the switch as it is.
    Deactivate {
        /// The catalogue's table, e.g. formulateds or master_campaign_cycles.
        catalogue: String,
        /// The row's reference key (e.g. ar.product.roundup-full-ii), or its id.
        row: String,
    },
}

#[derive(Debug, Subcommand)]
enum SocietyCommand {
    /// Create a society; prints its id.
    Create {
        /// Legal name, as login returns it.
        #[arg(long)]
        legal_name: String,
        /// ISO country code: AR, BR, PY, BO, CO, MX, UY or VE.
        #[arg(long)]
        country: String,
        /// IANA time zone; defaults to the country's.
        #[arg(long)]
        time_zone: Option<String>,
    },
    /// List societies.
    List,
}

#[derive(Debug, Subcommand)]
enum UserCommand {
    /// Create an account; the password is read from TRANQUERA_PASSWORD or standard input.
    Create {
        /// The account's society.
        #[arg(long)]
        society: i64,
        /// Login email.
        #[arg(long)]
        email: String,
        /// First name.
        #[arg(long)]
        name: String,
        /// Last name.
        #[arg(long)]
        lastname: Option<String>,
        /// A role; repeat for several. `api_integrated` lets the account use the API.
        #[arg(long = "role")]
        roles: Vec<String>,
    },
    /// List accounts: id, society, email, name, roles, active. Never a password hash or a token.
    List {
        /// Only this society's accounts.
        #[arg(long)]
        society: Option<i64>,
    },
    /// Replace an account's roles.
    Roles {
        /// The account's email.
        #[arg(long)]
        email: String,
        /// A role; repeat for several. Give none to remove every role.
        #[arg(long = "role")]
        roles: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
enum FarmerCommand {
    /// Create a farmer; prints its id.
    Create {
        /// The farmer's society.
        #[arg(long)]
        society: i64,
        /// Company or first name.
        #[arg(long)]
        name: String,
        /// A person's last name.
        #[arg(long)]
        lastname: Option<String>,
        /// Tax identifier.
        #[arg(long)]
        cuit: Option<String>,
        /// Code in the integrator's ERP.
        #[arg(long)]
        external_code: Option<String>,
        /// Contact email.
        #[arg(long)]
        email: Option<String>,
        /// Contact phone.
        #[arg(long)]
        phone_number: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum TokensCommand {
    /// Revoke every live token of an account.
    Revoke {
        /// The account's email.
        #[arg(long)]
        email: String,
    },
}

#[derive(Debug, Subcommand)]
enum ApiKeyCommand {
    /// Issue an API key for a society; it is printed once and stored only as a hash.
    Create {
        /// The society.
        #[arg(long)]
        society: i64,
        /// What the key is for.
        #[arg(long, default_value = "")]
        label: String,
    },
}

/// Runs an operator command.
pub async fn run(args: AdminArgs) -> Result<(), Failure> {
    let store = connect(&args.database, None).await?;
    store.migrate().await?;
    let admin = store.admin();
    match args.command {
        AdminCommand::Society(SocietyCommand::Create {
            legal_name,
            country,
            time_zone,
        }) => {
            println!(
                "{}",
                admin
                    .create_society(&legal_name, &country, time_zone.as_deref())
                    .await?
            );
        }
        AdminCommand::Society(SocietyCommand::List) => {
            for society in admin.societies().await? {
                println!(
                    "{}\t{}\t{}\t{}",
                    society.id, society.country, society.time_zone, society.legal_name
                );
            }
        }
        AdminCommand::User(command) => user(&admin, command).await?,
        AdminCommand::Farmer(FarmerCommand::Create {
            society,
            name,
            lastname,
            cuit,
            external_code,
            email,
            phone_number,
        }) => {
            let farmer = NewFarmer {
                name,
                lastname,
                cuit,
                observations: None,
                external_code,
                email,
                phone_number,
            };
            println!("{}", admin.create_farmer(society, &farmer).await?);
        }
        AdminCommand::Tokens(TokensCommand::Revoke { email }) => {
            println!("{} token(s) revoked", admin.revoke_tokens(&email).await?);
        }
        AdminCommand::ApiKey(ApiKeyCommand::Create { society, label }) => {
            println!("{}", admin.create_api_key(society, &label).await?);
        }
        AdminCommand::Reference(command) => reference(&store, command).await?,
        AdminCommand::Import(args) => {
            let outcome = import::run(&store, args).await;
            store.close().await;
            return outcome;
        }
        AdminCommand::Export(args) => export::run(&store, args).await?,
        AdminCommand::Webhook(command) => webhooks::run(&store, command).await?,
    }
    store.close().await;
    Ok(())
}

/// Runs `tranquera admin user …`.
async fn user(admin: &Admin<'_>, command: UserCommand) -> Result<(), Failure> {
    match command {
        UserCommand::Create {
            society,
            email,
            name,
            lastname,
            roles,
        } => {
            let password = read_password()?;
            let user = NewUser {
                society_id: society,
                email,
                name,
                lastname,
                password,
                roles,
            };
            println!("{}", admin.create_user(&user).await?);
        }
        UserCommand::List { society } => {
            for user in admin.users(society).await? {
                let name = [Some(user.name.as_str()), user.lastname.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" ");
                println!(
                    "{}\t{}\t{}\t{}\t{}\t{}",
                    user.id,
                    user.society_id,
                    user.email,
                    name,
                    user.roles,
                    if user.active { "active" } else { "inactive" }
                );
            }
        }
        UserCommand::Roles { email, roles } => {
            admin.set_roles(&email, &roles).await?;
            println!("roles of {email}: {}", roles.join(", "));
        }
    }
    Ok(())
}

async fn reference(store: &store::Store, command: ReferenceCommand) -> Result<(), Failure> {
    let (catalogue, row, active) = match command {
        ReferenceCommand::Status => {
            for release in store.reference_releases().await? {
                let applied = chrono::DateTime::from_timestamp_millis(release.applied_at).unwrap_or_default();
                println!(
                    "{}\tapplied {}\t{} added\t{} corrected",
                    release.version,
                    applied.to_rfc3339(),
                    release.added,
                    release.corrected
                );
            }
            return Ok(());
        }
        ReferenceCommand::Activate { catalogue, row } => (catalogue, row, true),
        ReferenceCommand::Deactivate { catalogue, row } => (catalogue, row, false),
    };
    if !store.set_reference_active(&catalogue, &row, active).await? {
        return Err(format!("{catalogue} has no row {row:?}").into());
    }
    println!("{catalogue} {row}: active = {active}");
    Ok(())
}

fn read_password() -> Result<String, Failure> {
    if let Ok(password) = std::env::var("TRANQUERA_PASSWORD") {
        return Ok(password);
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprint!("Password: ");
        std::io::stderr().flush()?;
    }
    let mut line = String::new();
    stdin.lock().read_line(&mut line)?;
    let password = line.trim_end_matches(['\r', '\n']).to_owned();
    if password.is_empty() {
        return Err("no password: set TRANQUERA_PASSWORD or write it on standard input".into());
    }
    Ok(password)
}
