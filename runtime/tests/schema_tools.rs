//! `ServerBuilder::tool_with_schema` through rmcp's client: the entry is
//! listed with its JSON Schema 2020-12 as written, and the handler gets the
//! arguments as the client sent them.

mod common;

use rmcp::model::{CallToolRequestParams, Tool};
use serde_json::{Value, json};
use toolmetadata::server::Server;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_as_written_is_listed_and_its_arguments_reach_the_handler() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"point": {"$anchor": "p", "type": "object"}},
        "properties": {"at": {"$ref": "#/$defs/point"}, "label": {"type": "string"}},
        "if": {"required": ["label"]},
        "then": {"required": ["at"]},
        "additionalProperties": false
    });
    let Value::Object(object) = schema.clone() else {
        unreachable!("an object")
    };
    let server = Server::builder()
        .tool_with_schema(
            Tool::new("mark", "Marks a point", object),
            |args, _| async move { Ok(Value::Object(args).to_string()) },
        )
        .build()
        .expect("server");
    let client = common::connect(server, ()).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let mark = tools.iter().find(|t| t.name == "mark").expect("listed");
    assert_eq!(Value::Object((*mark.input_schema).clone()), schema);

    let args = json!({"at": {"x": 1}, "label": "here"});
    let Value::Object(map) = args.clone() else {
        unreachable!("an object")
    };
    let result = client
        .call_tool(CallToolRequestParams::new("mark").with_arguments(map))
        .await
        .expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let text = result.content[0].as_text().expect("text").text.clone();
    assert_eq!(serde_json::from_str::<Value>(&text).expect("json"), args);
}
