//! Deterministic demo data: a society in each of the platform's eight countries (Argentina, Brazil and Mexico first,
//! then Paraguay, Bolivia, Colombia, Uruguay and Venezuela), fixed accounts, and farmers with their establishments and
//! plots that look like each country's farm businesses. The same options always give the same data, ids included, on
//! either backend.
//!
//! The catalogues (species, units, cycles, products, voucher types, adversities, …) are not the demo's: `migrate`
//! loads them from the reference data every deployment ships ([`store::reference`]), and the demo reads their ids.
//! Every row is written through the store's bulk loader ([`store::bulk`]): this crate names tables and columns and
//! numbers rows itself (after the largest id a table holds), and holds no SQL. It is also where the benchmark's
//! large society is made ([`large`]).
//!
//! # Layout
//! - [`people`]: farmers, establishments and plots that look like each country's.
//! - [`backbone`]: master campaigns, campaigns and cultivations.
//! - [`planning`]: tags, and plots' associations with the external systems.
//! - [`operations`]: contractors, machines, applicators, warehouses, work orders and jobs.
//! - [`field`]: scoutings, progress, controls, silobags, weather and devices.
//! - [`large`]: the benchmark's large society.
//! - [`rows`]: the tables being written and the ids being handed out.
//! - [`words`]: the texts of each language the generators write (the Brazilian society's are Brazilian Portuguese).

use chrono::{TimeZone, Utc};
use store::admin::{AdminError, NewUser};
use store::auth::API_ROLE;
use store::bulk::Kind;
use store::{Arg, Store};

/// A day, in milliseconds.
const DAY: i64 = 24 * 3_600_000;

mod backbone;
mod field;
pub mod large;
mod operations;
mod people;
mod planning;
mod rows;
mod words;

/// What every group's society seed needs to know.
#[derive(Debug, Clone, Copy)]
struct SocietySeed {
    /// The society being seeded.
    pub society_id: i64,
    /// Its country code (AR, BR, MX, PY, BO, CO, UY, VE).
    pub country: &'static str,
    /// This society's random seed; a group derives its own from it (e.g. `seed ^ GROUP`), so groups do not depend
    /// on each other's draws.
    pub seed: u64,
    /// The demo's `--scale`.
    pub scale: u32,
    /// The instant the demo's history starts at (epoch ms); records are spread over the months after it.
    pub origin: i64,
}

/// A demo account, listed in docs/sandbox.md.
#[derive(Debug, Clone, Copy)]
pub struct DemoAccount {
    /// Country code of its society.
    pub country: &'static str,
    /// Login email.
    pub email: &'static str,
    /// Password.
    pub password: &'static str,
    /// Whether it holds `api_integrated`.
    pub api_role: bool,
    /// First name.
    pub name: &'static str,
    /// Last name.
    pub lastname: &'static str,
}

/// The demo accounts: one integrator per society, and an Argentine agronomist without the API role.
pub const DEMO_ACCOUNTS: &[DemoAccount] = &[
    DemoAccount {
        country: "AR",
        email: "integrador@lapampa.com.ar",
        password: "LaPampa-2026",
        api_role: true,
        name: "Integración",
        lastname: "ERP",
    },
    DemoAccount {
        country: "AR",
        email: "agronoma@lapampa.com.ar",
        password: "LaPampa-2026",
        api_role: false,
        name: "Lucía",
        lastname: "Fernández",
    },
    DemoAccount {
        country: "BR",
        email: "integrador@fazendacerrado.com.br",
        password: "Cerrado-2026",
        api_role: true,
        name: "Integração",
        lastname: "ERP",
    },
    DemoAccount {
        country: "MX",
        email: "integrador@agricolabajio.com.mx",
        password: "Bajio-2026",
        api_role: true,
        name: "Integración",
        lastname: "ERP",
    },
    DemoAccount {
        country: "PY",
        email: "integrador@agroaltoparana.com.py",
        password: "AltoParana-2026",
        api_role: true,
        name: "Integración",
        lastname: "ERP",
    },
    DemoAccount {
        country: "BO",
        email: "integrador@cuatrocanadas.com.bo",
        password: "Canadas-2026",
        api_role: true,
        name: "Integración",
        lastname: "ERP",
    },
    DemoAccount {
        country: "CO",
        email: "integrador@agrollano.com.co",
        password: "Llano-2026",
        api_role: true,
        name: "Integración",
        lastname: "ERP",
    },
    DemoAccount {
        country: "UY",
        email: "integrador@estanciaslitoral.com.uy",
        password: "Litoral-2026",
        api_role: true,
        name: "Integración",
        lastname: "ERP",
    },
    DemoAccount {
        country: "VE",
        email: "integrador@llanosportuguesa.com.ve",
        password: "Portuguesa-2026",
        api_role: true,
        name: "Integración",
        lastname: "ERP",
    },
];

/// How much demo data to make.
#[derive(Debug, Clone, Copy)]
pub struct DemoOptions {
    /// Multiplies every society's farmers (and so everything under them); 1 is the laptop demo.
    pub scale: u32,
    /// Farmers per society at scale 1 (a third of them in the five later countries' societies).
    pub farmers: u32,
    /// The random seed; the same seed gives the same data.
    pub seed: u64,
}

impl Default for DemoOptions {
    fn default() -> Self {
        Self {
            scale: 1,
            farmers: 120,
            seed: 20_260_101,
        }
    }
}

/// What the seed made.
#[derive(Debug, Clone, Default)]
pub struct DemoSummary {
    /// Societies created, with their ids and countries.
    pub societies: Vec<(i64, &'static str, &'static str)>,
    /// Farmers created.
    pub farmers: u64,
    /// Establishments created.
    pub establishments: u64,
    /// Plots created.
    pub plots: u64,
}

/// Whether the database already holds any society (the demo does not seed twice).
pub async fn is_seeded(store: &Store) -> Result<bool, AdminError> {
    Ok(!store.admin().societies().await?.is_empty())
}

/// Seeds the demo data into an empty, migrated database (so the catalogues are there): each society's people, then
/// each group's society data, in an order where everything a group refers to already exists.
pub async fn demo(store: &Store, options: &DemoOptions) -> Result<DemoSummary, AdminError> {
    if is_seeded(store).await? {
        return Err(AdminError::Invalid(
            "the database already holds data; the demo seeds only an empty one".into(),
        ));
    }
    let mut summary = DemoSummary::default();
    // A fixed origin keeps the data identical from run to run; records are spread over the following months.
    let origin = Utc
        .with_ymd_and_hms(2025, 6, 2, 11, 0, 0)
        .single()
        .map_or(0, |t| t.timestamp_millis());
    date_the_catalogues(store, origin - 90 * DAY).await?;
    let mut societies = Vec::new();
    for country in people::COUNTRIES {
        let society_id = store
            .admin()
            .create_society(country.legal_name, country.code, None)
            .await?;
        summary.societies.push((society_id, country.code, country.legal_name));
        let mut field_user = None;
        for account in DEMO_ACCOUNTS.iter().filter(|a| a.country == country.code) {
            let roles = if account.api_role {
                vec![API_ROLE.to_owned()]
            } else {
                vec!["agronomist".to_owned()]
            };
            let id = store
                .admin()
                .create_user(&NewUser {
                    society_id,
                    email: account.email.into(),
                    name: account.name.into(),
                    lastname: Some(account.lastname.into()),
                    password: account.password.into(),
                    roles,
                })
                .await?;
            if field_user.is_none() || !account.api_role {
                field_user = Some(id);
            }
        }
        let society = SocietySeed {
            society_id,
            country: country.code,
            seed: options
                .seed
                .wrapping_add(society_id.unsigned_abs().wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            scale: options.scale.max(1),
            origin,
        };
        let counts = people::society(store, &society, country, options.farmers, field_user).await?;
        summary.farmers += counts.farmers;
        summary.establishments += counts.establishments;
        summary.plots += counts.plots;
        societies.push(society);
    }
    for society in &societies {
        backbone::society(store, society).await?;
        planning::society(store, society).await?;
        operations::society(store, society).await?;
        field::society(store, society).await?;
    }
    Ok(summary)
}

/// Dates every catalogue row at `at`. `migrate` stamps the reference data with the moment it loaded it, but in the
/// demo's story the catalogues predate the history its records are spread over (a record should not refer to a
/// product created after it), and an integrator's first incremental sync should find nothing new in them.
async fn date_the_catalogues(store: &Store, at: i64) -> Result<(), AdminError> {
    for table in store::reference::catalogue_tables() {
        let dated = store
            .read_rows(table, &[("id", Kind::Int)], &[])
            .await?
            .into_iter()
            .flat_map(|row| row.into_iter().chain([Arg::from(at), Arg::from(at)]));
        store
            .bulk_update(table, &["id"], &["created_at", "updated_at"], dated)
            .await?;
    }
    Ok(())
}
