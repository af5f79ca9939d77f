//! `tranquera openapi`: prints the OpenAPI 3.1 document of every route, as `/openapi.json` serves it, so a client
//! can be generated without running a server.

use clap::Args;

use crate::settings::Failure;

/// Flags of `tranquera openapi`.
#[derive(Debug, Args)]
pub struct OpenApiArgs {
    /// The token in header names, as the server is configured.
    #[arg(long, env = "TRANQUERA_HEADER_TOKEN", default_value = "SVC")]
    header_token: String,
}

/// Prints the document.
pub fn run(args: OpenApiArgs) -> Result<(), Failure> {
    let document = server::openapi_document(&args.header_token);
    println!("{}", serde_json::to_string_pretty(&document)?);
    Ok(())
}
