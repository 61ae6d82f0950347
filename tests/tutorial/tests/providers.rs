//! Function calling without MCP: for every provider profile, the tutorial's
//! tools exported as that provider's request takes them, and a call built
//! from the exported definition as its response gives it (every optional
//! value sent as `null`, as strict profiles do) reaches the handler with the
//! same arguments as the MCP call without them; a constraint the export
//! moved into the description is still enforced, with the same error.

use notes::{Notes, tools};
use serde_json::{Value, json};
use toolmetadata::args::Map;
use toolmetadata::profile::{Export, Profile};
use toolmetadata::{CallOutcome, Context};

/// A call of `name` with `args` in `profile`'s response shape.
fn provider_call(profile: Profile, name: &str, args: &Value) -> Value {
    match profile {
        Profile::OpenAi | Profile::OpenAiStrict => {
            json!({"id": "call_1", "type": "function", "function": {"name": name, "arguments": args.to_string()}})
        }
        Profile::Anthropic | Profile::AnthropicStrict => {
            json!({"type": "tool_use", "id": "toolu_1", "name": name, "input": args})
        }
        Profile::Gemini | Profile::GeminiJson => {
            json!({"functionCall": {"name": name, "args": args}})
        }
        _ => json!({"name": name, "arguments": args}),
    }
}

/// The arguments a model following `export`'s schema sends: `given`, and
/// `null` for every other property the schema lists.
fn arguments(export: &Export, given: &Value) -> Value {
    let mut args = given.as_object().cloned().unwrap_or_default();
    if let Some(props) = export
        .parameters
        .as_ref()
        .and_then(|p| p["properties"].as_object())
    {
        for key in props.keys() {
            args.entry(key.clone()).or_insert(Value::Null);
        }
    }
    Value::Object(args)
}

fn described(outcome: CallOutcome) -> String {
    match outcome {
        CallOutcome::Output(output) => format!("output: {}", output.text_content()),
        CallOutcome::InvalidArguments(errors) => format!("invalid: {errors}"),
        CallOutcome::Failed(error) => format!("failed: {}", error.message()),
    }
}

async fn over_mcp(args: Value) -> String {
    let set = tools::tool_set(Notes);
    let args: Map = args.as_object().cloned().unwrap_or_default();
    let call = set.call("search_notes", args, Context::new("search_notes"));
    described(call.expect("a tool of the set").await)
}

#[tokio::test]
async fn every_profile_calls_reach_the_handler_as_mcp_calls_do() {
    let set = tools::tool_set(Notes);
    for &profile in Profile::ALL {
        let tools = set.for_provider(profile);
        let definitions = tools.definitions().to_string();
        let export = tools
            .exports()
            .iter()
            .find(|e| e.mcp_name == "search_notes")
            .expect("exported");
        assert!(
            definitions.contains(&export.name),
            "{profile}: {definitions}"
        );
        for (given, mcp) in [
            // Optional values sent as null: the default applies.
            (json!({"query": "milk"}), json!({"query": "milk"})),
            (
                json!({"query": "milk", "limit": 1}),
                json!({"query": "milk", "limit": 1}),
            ),
            // Out of bounds, though a strict export says the bounds only in words.
            (
                json!({"query": "milk", "limit": 0}),
                json!({"query": "milk", "limit": 0}),
            ),
            (json!({"query": ""}), json!({"query": ""})),
            // The text "null" is text, not an absent value.
            (json!({"query": "null"}), json!({"query": "null"})),
        ] {
            let call = provider_call(profile, &export.name, &arguments(export, &given));
            let outcome = tools
                .call(&call)
                .unwrap_or_else(|e| panic!("{profile}: {}", e.message()))
                .await;
            assert_eq!(described(outcome), over_mcp(mcp).await, "{profile}: {call}");
        }
    }
}

#[tokio::test]
async fn a_constraint_moved_into_the_description_is_still_enforced() {
    let set = tools::tool_set(Notes);
    let tools = set.for_provider(Profile::AnthropicStrict);
    let export = tools
        .exports()
        .iter()
        .find(|e| e.mcp_name == "search_notes")
        .expect("exported");
    let limit = &export.parameters.as_ref().expect("parameters")["properties"]["limit"];
    assert!(limit.get("minimum").is_none(), "{limit}");
    assert!(
        limit["description"]
            .as_str()
            .unwrap_or_default()
            .contains("minimum 1")
    );
    let call = provider_call(
        Profile::AnthropicStrict,
        &export.name,
        &json!({"query": "milk", "limit": 0}),
    );
    let outcome = described(tools.call(&call).expect("a call").await);
    assert!(
        outcome.starts_with("invalid:") && outcome.contains("limit"),
        "{outcome}"
    );
}

#[tokio::test]
async fn calls_that_are_not_calls_say_why() {
    let set = tools::tool_set(Notes);
    let tools = set.for_provider(Profile::OpenAi);
    for (call, expected) in [
        (json!({"type": "function"}), "no `name`"),
        (
            json!({"function": {"name": "nope", "arguments": "{}"}}),
            "no tool `nope`",
        ),
        (
            json!({"function": {"name": "search_notes", "arguments": "{"}}),
            "not JSON",
        ),
        (
            json!({"function": {"name": "search_notes", "arguments": "[1]"}}),
            "not an object",
        ),
    ] {
        let error = tools
            .call(&call)
            .err()
            .unwrap_or_else(|| panic!("{call} is refused"));
        assert!(error.message().contains(expected), "{}", error.message());
    }
}

/// No arguments at all (some OpenAI-compatible servers send `""`): the
/// tool's own error about what it needs, as over MCP.
#[tokio::test]
async fn a_call_without_arguments_gets_the_tools_error() {
    let set = tools::tool_set(Notes);
    let tools = set.for_provider(Profile::OpenAi);
    let call = json!({"type": "function", "function": {"name": "search_notes", "arguments": ""}});
    let outcome = described(tools.call(&call).expect("a call").await);
    assert_eq!(outcome, over_mcp(json!({})).await);
    assert!(
        outcome.contains("missing required argument `query`"),
        "{outcome}"
    );
}

/// A tool with `[confirm]` whose `unsupported` is `proceed` (the default)
/// runs: a call from a model has no one to ask.
#[tokio::test]
async fn a_confirmed_tool_proceeds_as_its_metadata_says() {
    let set = tools::tool_set(Notes);
    let tools = set.for_provider(Profile::Anthropic);
    let call = json!({"type": "tool_use", "id": "t", "name": "archive_note", "input": {"note": "buy milk"}});
    let outcome = described(tools.call(&call).expect("a call").await);
    assert_eq!(outcome, "output: archived \"buy milk\"");
}
