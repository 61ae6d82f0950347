//! What the generated module holds besides a tool's types and the set:
//! the server's manifests, and each tool's declared failures.

use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::quote;

use super::tokens::{allow, doc, ident};
use crate::model::Tool;

/// The server's manifests as JSON text (`Builder::manifests`).
pub(super) fn manifests(manifests: &crate::manifest::Manifests) -> TokenStream {
    let pretty = |value: &serde_json::Value| {
        let text = serde_json::to_string_pretty(value).unwrap_or_default();
        Lit::string(&text)
    };
    let server_json = pretty(&manifests.server_json);
    let bundle = pretty(&manifests.bundle);
    let card = pretty(&manifests.server_card);
    let allow = allow();
    quote! {
        /// The server's manifests, written at build time from `Cargo.toml`'s
        /// `[package.metadata.mcp]` and the tools.
        #allow
        pub mod manifests {
            /// The MCP registry's `server.json`: this crate as a `cargo` package.
            pub const SERVER_JSON: &str = #server_json;
            /// An MCP bundle's `manifest.json` (`.mcpb`), for this binary.
            pub const BUNDLE_MANIFEST: &str = #bundle;
            /// The server card, to serve with `HttpOptions::server_card`.
            pub const SERVER_CARD: &str = #card;
        }
    }
}

/// `{Tool}Failure`: a variant per declared failure, and the error that
/// returns it.
pub(super) fn failure_enum(tool: &Tool) -> TokenStream {
    let name = ident(&tool.failure_type);
    let allow = allow();
    let summary = doc(&format!(
        "The failures `{}` declares (`[[failures]]`): return one with `Err({}::Variant.error(message))`.",
        tool.name, tool.failure_type
    ));
    let variants: Vec<Ident> = tool
        .failures
        .iter()
        .map(|f| ident(&toolmetadata_load::metadata::names::variant_name(&f.code)))
        .collect();
    let docs = tool.failures.iter().map(|f| doc(&f.description));
    let codes: Vec<&str> = tool.failures.iter().map(|f| f.code.as_str()).collect();
    let classes = tool.failures.iter().map(|f| match f.class {
        toolmetadata_load::metadata::FailureClass::Capability => quote!(Capability),
        toolmetadata_load::metadata::FailureClass::Reliability => quote!(Reliability),
        toolmetadata_load::metadata::FailureClass::Governance => quote!(Governance),
    });
    let retryable = tool.failures.iter().map(|f| f.retryable);
    let (v1, v2) = (variants.iter(), variants.iter());
    quote! {
        #summary
        #allow
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq)]
        pub enum #name {
            #(#docs #v1,)*
        }

        #allow
        impl #name {
            /// This failure, with `message` for the model: what the handler returns.
            pub fn error(
                self,
                message: impl ::core::convert::Into<::std::string::String>,
            ) -> ::toolmetadata::codegen::ToolError {
                let (code, class, retryable) = match self {
                    #(Self::#v2 => (#codes, ::toolmetadata::codegen::FailureClass::#classes, #retryable),)*
                };
                ::toolmetadata::codegen::ToolError::declared(code, class, retryable, message)
            }
        }
    }
}
