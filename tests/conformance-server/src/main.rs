//! The conformance server: what the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) calls in its server scenarios,
//! served by toolmetadata from metadata files like any user's server. Its
//! tools are `tools/*.toml`, compiled by `build.rs`, and its skills the
//! directories of `skills/`; its handlers use only the public API.
//!
//! ```text
//! conformance-server --http ADDR [--skills DIR]
//!     # serves /mcp, and the skills of DIR (by default this crate's skills/);
//!     # prints `listening on http://ADDR/mcp` on stderr
//! ```

mod handler;
mod media;
mod tasks;
mod tools;

use std::process::ExitCode;
use std::sync::Arc;

use toolmetadata::ask::{Answer, Field, Question};
use toolmetadata::server::rmcp::handler::server::skill_catalog::SkillCatalog;
use toolmetadata::server::rmcp::model::{
    ContentBlock, GetPromptResult, Prompt, PromptArgument, PromptMessage, Resource,
    ResourceContents, ResourceTemplate, Role, Tool,
};
use toolmetadata::server::{HttpOptions, Server, ServerBuilder};
use toolmetadata::{Context, ToolError};

use crate::media::PNG;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (addr, skills) = match &args[..] {
        [http, addr] if http == "--http" => (addr.clone(), SKILLS.to_owned()),
        [http, addr, skills, dir] if http == "--http" && skills == "--skills" => {
            (addr.clone(), dir.clone())
        }
        _ => {
            eprintln!("usage: conformance-server --http ADDR [--skills DIR]");
            return ExitCode::from(2);
        }
    };
    let addr = match addr.parse() {
        Ok(addr) => addr,
        Err(e) => {
            eprintln!("error: --http {addr}: {e}");
            return ExitCode::from(2);
        }
    };
    match serve(addr, skills).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The skills served unless `--skills` says otherwise: this crate's own.
const SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");

async fn serve(
    addr: std::net::SocketAddr,
    skills: String,
) -> Result<(), Box<dyn std::error::Error>> {
    // The skills (SEP-2640), read off the async workers.
    let skills = tokio::task::spawn_blocking(move || SkillCatalog::from_dir(skills))
        .await?
        .map_err(|e| format!("--skills: {e}"))?;
    let server = extras(Server::builder().tool_set(tools::tool_set(handler::Suite)))
        // The tasks extension's MRTR-then-task composition.
        .ask_before_task("test_tool_with_task")
        .skills(Arc::new(skills))
        .instructions("The MCP conformance suite's test server")
        .build()?;
    let bound = server.bind_http(HttpOptions::default().addr(addr)).await?;
    eprintln!("listening on http://{}/mcp", bound.local_addr()?);
    bound.run().await?;
    Ok(())
}

/// A tool whose input schema is JSON Schema 2020-12 as written: `$defs`
/// with an `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`
/// (json-schema-2020-12).
fn json_schema_2020_12_tool() -> Tool {
    let schema = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    });
    let serde_json::Value::Object(schema) = schema else {
        unreachable!("an object literal")
    };
    Tool::new(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        schema,
    )
}

/// The suite's prompts, resources and completions.
fn extras(builder: ServerBuilder) -> ServerBuilder {
    builder
        .static_resource(
            Resource::new("test://static-text", "static-text")
                .with_description("A static text resource")
                .with_mime_type("text/plain"),
            ResourceContents::text(
                "This is the content of the static text resource.",
                "test://static-text",
            )
            .with_mime_type("text/plain"),
        )
        .static_resource(
            Resource::new("test://static-binary", "static-binary")
                .with_description("A static binary resource: a PNG")
                .with_mime_type("image/png"),
            ResourceContents::blob(PNG, "test://static-binary").with_mime_type("image/png"),
        )
        .tool_with_schema(json_schema_2020_12_tool(), |args, _| async move {
            Ok(format!("received: {}", serde_json::Value::Object(args)))
        })
        // What resources-subscribe and -unsubscribe watch.
        .static_resource(
            Resource::new("test://watched-resource", "watched-resource")
                .with_description("A resource to subscribe to")
                .with_mime_type("text/plain"),
            ResourceContents::text("Watched resource content", "test://watched-resource")
                .with_mime_type("text/plain"),
        )
        .resource_template(
            ResourceTemplate::new("test://template/{id}/data", "template")
                .with_description("Data for an id")
                .with_mime_type("application/json"),
            |uri, vars, _cx| async move {
                let id = vars.get("id").cloned().unwrap_or_default();
                let text = serde_json::json!({
                    "id": id, "templateTest": true, "data": format!("Data for ID: {id}")
                });
                Ok(vec![
                    ResourceContents::text(text.to_string(), uri)
                        .with_mime_type("application/json"),
                ])
            },
        )
        .prompt(
            Prompt::new(
                "test_simple_prompt",
                Some("A prompt without arguments"),
                None,
            ),
            |_, _| async {
                Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    "This is a simple prompt for testing.",
                )]))
            },
        )
        .prompt(
            Prompt::new(
                "test_prompt_with_arguments",
                Some("A prompt with two arguments"),
                Some(vec![
                    PromptArgument::new("arg1")
                        .with_description("First test argument")
                        .with_required(true),
                    PromptArgument::new("arg2")
                        .with_description("Second test argument")
                        .with_required(true),
                ]),
            ),
            |args, _| async move {
                let arg = |name: &str| {
                    args.get(name)
                        .and_then(|v| v.as_str())
                        .unwrap_or_default()
                        .to_owned()
                };
                Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!(
                        "Prompt with arguments: arg1='{}', arg2='{}'",
                        arg("arg1"),
                        arg("arg2")
                    ),
                )]))
            },
        )
        .prompt(
            Prompt::new(
                "test_prompt_with_embedded_resource",
                Some("A prompt that embeds a resource"),
                Some(vec![
                    PromptArgument::new("resourceUri")
                        .with_description("URI of the resource to embed")
                        .with_required(true),
                ]),
            ),
            |args, _| async move {
                let uri = args
                    .get("resourceUri")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_owned();
                Ok(GetPromptResult::new(vec![
                    PromptMessage::new(
                        Role::User,
                        ContentBlock::resource(
                            ResourceContents::text("Embedded resource content for testing.", uri)
                                .with_mime_type("text/plain"),
                        ),
                    ),
                    PromptMessage::new_text(
                        Role::User,
                        "Please process the embedded resource above.",
                    ),
                ]))
            },
        )
        .prompt(
            Prompt::new(
                "test_prompt_with_image",
                Some("A prompt with an image"),
                None,
            ),
            |_, _| async {
                Ok(GetPromptResult::new(vec![
                    PromptMessage::new(Role::User, ContentBlock::image(PNG, "image/png")),
                    PromptMessage::new_text(Role::User, "Please analyze the image above."),
                ]))
            },
        )
        .prompt(
            Prompt::new(
                "test_input_required_result_prompt",
                Some(
                    "A prompt that asks the person for its context first (SEP-2322 on prompts/get)",
                ),
                None,
            ),
            |_, cx: Context| async move {
                let question = Question::new("What context should the prompt use?")
                    .key("user_context")
                    .field(Field::string("context").required());
                let context = match cx
                    .ask(question)
                    .await
                    .map_err(|e| ToolError::new(e.to_string()))?
                {
                    Answer::Accept(answers) => answers.get::<String>("context")?,
                    Answer::Decline | Answer::Cancel => "none given".to_owned(),
                };
                Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!("Answer with this context in mind: {context}"),
                )]))
            },
        )
        .complete_prompt(
            "test_prompt_with_arguments",
            "arg1",
            |typed, _| async move {
                ["paris", "park", "party", "test", "testing"]
                    .into_iter()
                    .filter(|v| v.starts_with(typed.as_str()))
                    .map(str::to_owned)
                    .collect()
            },
        )
}
