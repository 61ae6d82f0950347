//! A generated tool set used for function calling without MCP: its tools
//! as a provider's request takes them, and a call as the provider's
//! response gives it, run through the same decoding, checks and handlers as
//! an MCP call.

use std::future::Future;

use serde_json::Value;

use super::{Export, Profile};
use crate::args::Map;
use crate::call_future::CallOutcome;
use crate::metadata::Unsupported;
use crate::tool_set::ToolSet;
use crate::{Context, ToolError};

impl<T> ToolSet<T> {
    /// This set's tools for `profile`'s provider: their definitions for a
    /// request ([`ProviderTools::definitions`]), and the calls the model
    /// answers with ([`ProviderTools::call`]).
    ///
    /// ```text
    /// let tools = set.for_provider(Profile::OpenAiStrict);
    /// let request = json!({"model": "…", "messages": […], "tools": tools.definitions()});
    /// // … for each tool call of the response:
    /// let outcome = tools.call(&tool_call)?.await;
    /// ```
    pub fn for_provider(&self, profile: Profile) -> ProviderTools<'_, T> {
        let entries: Vec<Value> = self
            .entries
            .iter()
            .map(|e| serde_json::from_str(e.entry_json).unwrap_or(Value::Null))
            .collect();
        ProviderTools {
            set: self,
            profile,
            exports: profile.export_set(&entries),
        }
    }
}

/// A tool set's tools as one provider sees them: made by
/// [`ToolSet::for_provider`].
pub struct ProviderTools<'a, T> {
    set: &'a ToolSet<T>,
    profile: Profile,
    exports: Vec<Export>,
}

impl<T> std::fmt::Debug for ProviderTools<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderTools")
            .field("profile", &self.profile)
            .field("exports", &self.exports)
            .finish()
    }
}

impl<'a, T> ProviderTools<'a, T> {
    /// A request's `tools`, in the provider's shape
    /// ([`Profile::tools`]).
    pub fn definitions(&self) -> Value {
        self.profile.tools(&self.exports)
    }

    /// Each tool's export: the name the provider sees and the MCP name it
    /// maps back to, its schema, what it could not carry.
    pub fn exports(&self) -> &[Export] {
        &self.exports
    }

    /// Runs a tool call given as the provider's response gives it:
    ///
    /// - OpenAI Chat Completions: `{"type": "function", "function": {"name",
    ///   "arguments": "<JSON text>"}}`; Responses: `{"type":
    ///   "function_call", "name", "arguments": "<JSON text>"}`;
    /// - Anthropic: `{"type": "tool_use", "name", "input": {…}}`;
    /// - Gemini: `{"functionCall": {"name", "args": {…}}}` (or the inner
    ///   object);
    /// - the hosts' profile: MCP's `{"name", "arguments": {…}}`.
    ///
    /// The name maps back to the MCP tool; a `null` for an optional value
    /// (what strict profiles send) is an absent value, while the text
    /// `"null"` stays text. The arguments are then decoded and checked as an
    /// MCP call's are, every constraint included (those the export moved
    /// into descriptions too), before the handler runs, with a [`Context`]
    /// of that tool. There is no person to ask here: a tool with
    /// `[confirm]` runs only when its `unsupported` is `proceed` (the
    /// default), and is refused when it is `refuse`. An error says what the
    /// call lacked.
    pub fn call(
        &self,
        call: &Value,
    ) -> Result<impl Future<Output = CallOutcome> + Send + 'a, ToolError> {
        let (name, args) = parts(call)?;
        let export = self
            .exports
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| ToolError::new(format!("no tool `{name}` for {}", self.profile)))?;
        let tool = export.mcp_name.as_str();
        let entry = self.set.entries.iter().find(|e| e.name == tool);
        // Bound parameters come from a verified caller, which a model's
        // call is not: never from the model, and a required one refuses.
        for bound in entry.map_or(&[][..], |e| e.bound) {
            let from = if bound.claim {
                "token's claim"
            } else {
                "request's header"
            };
            if args.contains_key(bound.name) {
                return Err(ToolError::new(format!(
                    "`{tool}`: `{}` is not the model's to give: it comes from the caller's {from} `{}`",
                    bound.name, bound.key
                )));
            }
            if bound.required {
                return Err(ToolError::new(format!(
                    "`{tool}` needs `{}` from the caller's {from} `{}`, which a call from a model has not",
                    bound.name, bound.key
                )));
            }
        }
        let confirm = entry.and_then(|e| e.confirm);
        if confirm.is_some_and(|c| c.unsupported == Unsupported::Refuse) {
            return Err(ToolError::new(format!(
                "`{tool}` asks the person before it runs ([confirm], unsupported = \"refuse\"), and a call from a model has no one to ask"
            )));
        }
        self.set
            .call(tool, args, Context::new(tool))
            .ok_or_else(|| ToolError::new(format!("no tool `{tool}`")))
    }
}

/// The name and arguments of a provider's tool call.
fn parts(call: &Value) -> Result<(String, Map), ToolError> {
    let inner = call
        .get("function")
        .or_else(|| call.get("functionCall"))
        .unwrap_or(call);
    let name = inner["name"]
        .as_str()
        .ok_or_else(|| ToolError::new("the tool call has no `name`"))?
        .to_owned();
    let arguments = ["arguments", "input", "args"]
        .iter()
        .find_map(|k| inner.get(*k))
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    // OpenAI sends the arguments as JSON text (empty, from some servers
    // that follow its API, for a call without arguments).
    let arguments = match arguments {
        Value::String(text) if text.trim().is_empty() => Value::Null,
        Value::String(text) => serde_json::from_str(&text)
            .map_err(|e| ToolError::new(format!("the arguments of `{name}` are not JSON: {e}")))?,
        other => other,
    };
    match arguments {
        Value::Object(map) => Ok((name, map)),
        Value::Null => Ok((name, Map::new())),
        other => Err(ToolError::new(format!(
            "the arguments of `{name}` are not an object: {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::args::{ArgErrors, Conversion, FromArguments};
    use crate::codegen::{self, Call, Started, ToolEntry};

    /// The arguments as they came.
    struct Raw(Map);

    impl FromArguments for Raw {
        const TOOL: &'static str = "any";

        fn from_arguments(args: Map, _: Conversion) -> Result<Self, ArgErrors> {
            Ok(Raw(args))
        }
    }

    struct Echo;

    /// Two tools whose names map to one for OpenAI.
    static ENTRIES: &[ToolEntry] = &[
        ToolEntry::new(
            "api.v1.lookup",
            r#"{"name":"api.v1.lookup","description":"Dotted","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}"#,
        ),
        ToolEntry::new(
            "api_v1_lookup",
            r#"{"name":"api_v1_lookup","description":"Plain","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}"#,
        ),
        ToolEntry::new(
            "for_tenant",
            r#"{"name":"for_tenant","description":"Bound","inputSchema":{"type":"object","properties":{}}}"#,
        )
        .bound(&[crate::codegen::BoundEntry::claim("tenant", "tenant_id", false)]),
        ToolEntry::new(
            "drop_table",
            r#"{"name":"drop_table","description":"Drop","inputSchema":{"type":"object","properties":{}}}"#,
        )
        .confirm("Drop it?", crate::metadata::Unsupported::Refuse),
    ];

    fn dispatch<'a>(handler: &'a Echo, name: &str, call: Call) -> Option<Started<'a>> {
        let name = name.to_owned();
        Some(codegen::run(
            handler,
            move |_, Raw(args): Raw, _| async move {
                Ok(format!("{name} {}", Value::Object(args)).into())
            },
            call,
        ))
    }

    #[tokio::test]
    async fn mapped_names_come_back_to_their_own_tool() {
        let set = codegen::tool_set(Echo, ENTRIES, dispatch, Conversion::Lenient, "t", "0");
        let tools = set.for_provider(Profile::OpenAi);
        let names: Vec<(&str, &str)> = tools
            .exports()
            .iter()
            .map(|e| (e.name.as_str(), e.mcp_name.as_str()))
            .collect();
        assert_eq!(names[1], ("api_v1_lookup", "api_v1_lookup"));
        let (mapped, _) = names[0];
        assert!(
            mapped.starts_with("api_v1_lookup_") && mapped != "api_v1_lookup",
            "{mapped}"
        );
        for (name, reached) in [
            (mapped, "api.v1.lookup"),
            ("api_v1_lookup", "api_v1_lookup"),
        ] {
            let call = json!({"type": "function", "function": {"name": name, "arguments": "{\"q\":\"x\"}"}});
            let outcome = tools.call(&call).expect("a call").await;
            let CallOutcome::Output(output) = outcome else {
                panic!("{outcome:?}")
            };
            assert_eq!(output.text_content(), format!("{reached} {{\"q\":\"x\"}}"));
        }
    }

    #[test]
    fn a_tool_that_must_ask_first_is_refused() {
        let set = codegen::tool_set(Echo, ENTRIES, dispatch, Conversion::Lenient, "t", "0");
        let tools = set.for_provider(Profile::Anthropic);
        let call = json!({"type": "tool_use", "name": "drop_table", "input": {}});
        let error = tools.call(&call).err().expect("refused");
        assert!(
            error.message().contains("no one to ask"),
            "{}",
            error.message()
        );
    }

    #[tokio::test]
    async fn a_model_cannot_give_a_bound_parameter() {
        let set = codegen::tool_set(Echo, ENTRIES, dispatch, Conversion::Lenient, "t", "0");
        let tools = set.for_provider(Profile::Anthropic);
        let call = json!({"type": "tool_use", "name": "for_tenant", "input": {"tenant": "other"}});
        let error = tools.call(&call).err().expect("refused");
        assert!(
            error.message().contains("not the model's to give"),
            "{}",
            error.message()
        );
        let call = json!({"type": "tool_use", "name": "for_tenant", "input": {}});
        let CallOutcome::Output(output) = tools.call(&call).expect("a call").await else {
            panic!("ran")
        };
        assert_eq!(output.text_content(), "for_tenant {}");
    }
}
