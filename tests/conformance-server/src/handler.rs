//! The suite's test tools: each returns what its scenario's "Server
//! Implementation Requirements" say.

use std::time::Duration;

use toolmetadata::ask::{Answer, Field, Question};
use toolmetadata::sampling::Sampling;
use toolmetadata::{
    ClientCapability, Content, Context, LogLevel, ToolError, ToolOutput, ToolResult,
};

use crate::media::{PNG, WAV};
use crate::tools::*;

/// The handlers.
pub(crate) struct Suite;

impl Tools for Suite {
    async fn test_simple_text(&self, _: TestSimpleTextArgs, _: Context) -> ToolResult {
        Ok("This is a simple text response for testing.".into())
    }

    async fn test_image_content(&self, _: TestImageContentArgs, _: Context) -> ToolResult {
        Ok(ToolOutput::content(vec![Content::Image {
            data: PNG.to_owned(),
            mime_type: "image/png".to_owned(),
        }]))
    }

    async fn test_audio_content(&self, _: TestAudioContentArgs, _: Context) -> ToolResult {
        Ok(ToolOutput::content(vec![Content::Audio {
            data: WAV.to_owned(),
            mime_type: "audio/wav".to_owned(),
        }]))
    }

    async fn test_embedded_resource(&self, _: TestEmbeddedResourceArgs, _: Context) -> ToolResult {
        Ok(ToolOutput::content(vec![Content::Document {
            uri: "test://embedded-resource".to_owned(),
            mime_type: Some("text/plain".to_owned()),
            text: "This is an embedded resource content.".to_owned(),
        }]))
    }

    async fn test_multiple_content_types(
        &self,
        _: TestMultipleContentTypesArgs,
        _: Context,
    ) -> ToolResult {
        Ok(ToolOutput::content(vec![
            Content::Text("Multiple content types test:".to_owned()),
            Content::Image {
                data: PNG.to_owned(),
                mime_type: "image/png".to_owned(),
            },
            Content::Document {
                uri: "test://mixed-content-resource".to_owned(),
                mime_type: Some("application/json".to_owned()),
                text: r#"{"test":"data","value":123}"#.to_owned(),
            },
        ]))
    }

    async fn test_error_handling(&self, _: TestErrorHandlingArgs, _: Context) -> ToolResult {
        Err(ToolError::new(
            "This tool intentionally returns an error for testing",
        ))
    }

    /// Ends the call's SSE stream, telling the client to come back in half
    /// a second, works a moment, and answers on the resumed stream.
    async fn test_reconnection(&self, _: TestReconnectionArgs, cx: Context) -> ToolResult {
        let closed = cx.close_stream(Duration::from_millis(500)).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(if closed {
            "Reconnection test completed successfully".into()
        } else {
            "Reconnection test completed (no stream to close)".into()
        })
    }

    async fn test_tool_with_progress(
        &self,
        _: TestToolWithProgressArgs,
        cx: Context,
    ) -> ToolResult {
        for (i, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            cx.progress(done, Some(100.0), None).await;
        }
        Ok("Progress test completed".into())
    }

    async fn test_tool_with_logging(&self, _: TestToolWithLoggingArgs, cx: Context) -> ToolResult {
        cx.log(LogLevel::Info, "Tool execution started").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        cx.log(LogLevel::Info, "Tool processing data").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        cx.log(LogLevel::Info, "Tool execution completed").await;
        Ok("Logging test completed".into())
    }

    async fn test_logging_tool(&self, _: TestLoggingToolArgs, cx: Context) -> ToolResult {
        cx.log(LogLevel::Info, "A message for a client that asked for it")
            .await;
        Ok("Logged".into())
    }

    async fn test_streaming_elicitation(
        &self,
        _: TestStreamingElicitationArgs,
        cx: Context,
    ) -> ToolResult {
        let question = Question::new("What is your name?").field(Field::string("name").required());
        Ok(format!("User response: {}", said(&cx, question).await?).into())
    }

    async fn test_missing_capability(
        &self,
        _: TestMissingCapabilityArgs,
        cx: Context,
    ) -> ToolResult {
        cx.require(ClientCapability::Sampling)?;
        Ok("The client can sample".into())
    }

    async fn test_sampling(&self, a: TestSamplingArgs, cx: Context) -> ToolResult {
        let answer = cx
            .sample(Sampling::new(a.prompt, 100))
            .await
            .map_err(|e| ToolError::new(e.to_string()))?;
        Ok(format!("LLM response: {}", answer.text().unwrap_or_default()).into())
    }

    async fn test_input_required_result_elicitation(
        &self,
        _: TestInputRequiredResultElicitationArgs,
        cx: Context,
    ) -> ToolResult {
        let name = answer(&cx, name_question("user_name", "What is your name?")).await?;
        Ok(format!("Hello, {name}!").into())
    }

    async fn test_input_required_result_sampling(
        &self,
        _: TestInputRequiredResultSamplingArgs,
        cx: Context,
    ) -> ToolResult {
        let sampling = Sampling::new("What is the capital of France?", 100).key("capital_question");
        let answer = cx.sample(sampling).await.map_err(asked)?;
        Ok(format!("The model says: {}", answer.text().unwrap_or_default()).into())
    }

    async fn test_input_required_result_list_roots(
        &self,
        _: TestInputRequiredResultListRootsArgs,
        cx: Context,
    ) -> ToolResult {
        let roots = cx
            .roots()
            .await
            .map_err(|e| ToolError::new(e.to_string()))?;
        Ok(format!("Found {} root(s)", roots.roots().len()).into())
    }

    async fn test_input_required_result_multiple_inputs(
        &self,
        _: TestInputRequiredResultMultipleInputsArgs,
        cx: Context,
    ) -> ToolResult {
        // All three in one round: none waits for another's answer.
        let (name, greeting, roots) = tokio::join!(
            answer(&cx, name_question("user_name", "What is your name?")),
            cx.sample(Sampling::new("Generate a greeting", 50).key("greeting")),
            cx.roots(),
        );
        let greeting = greeting.map_err(asked)?;
        let roots = roots.map_err(|e| ToolError::new(e.to_string()))?;
        Ok(format!(
            "Name: {}; Greeting: {}; Roots: {}",
            name?,
            greeting.text().unwrap_or_default(),
            roots.roots().len()
        )
        .into())
    }

    async fn test_input_required_result_request_state(
        &self,
        _: TestInputRequiredResultRequestStateArgs,
        cx: Context,
    ) -> ToolResult {
        confirmed(&cx).await
    }

    async fn test_input_required_result_tampered_state(
        &self,
        _: TestInputRequiredResultTamperedStateArgs,
        cx: Context,
    ) -> ToolResult {
        confirmed(&cx).await
    }

    async fn test_input_required_result_multi_round(
        &self,
        _: TestInputRequiredResultMultiRoundArgs,
        cx: Context,
    ) -> ToolResult {
        let name = answer(&cx, name_question("step1", "Step 1: What is your name?")).await?;
        let question = Question::new("Step 2: What is your favorite color?")
            .key("step2")
            .field(Field::string("color").required());
        let color = match cx.ask(question).await.map_err(asked)? {
            Answer::Accept(answers) => answers.get::<String>("color")?,
            _ => "none".to_owned(),
        };
        Ok(format!("Hello, {name}: your favorite color is {color}").into())
    }

    async fn test_input_required_result_capabilities(
        &self,
        _: TestInputRequiredResultCapabilitiesArgs,
        cx: Context,
    ) -> ToolResult {
        // Each is asked only of a client that declared it can answer; both
        // are asked in the same round.
        let named = cx
            .ask(name_question("user_name", "What is your name?"))
            .await;
        let sampled = cx
            .sample(Sampling::new("Generate a greeting", 50).key("greeting"))
            .await;
        let mut said = Vec::new();
        match named {
            Ok(Answer::Accept(answers)) => {
                said.push(format!("name={}", answers.get::<String>("name")?))
            }
            Ok(_) | Err(toolmetadata::ask::AskError::Unsupported) => {}
            Err(e) => return Err(asked(e)),
        }
        match sampled {
            Ok(answer) => said.push(format!("greeting={}", answer.text().unwrap_or_default())),
            Err(toolmetadata::ask::AskError::Unsupported) => {}
            Err(e) => return Err(asked(e)),
        }
        Ok(said.join(", ").into())
    }

    async fn greet(&self, a: GreetArgs, _: Context) -> ToolResult {
        crate::tasks::greet(a)
    }

    async fn slow_compute(&self, a: SlowComputeArgs, cx: Context) -> ToolResult {
        crate::tasks::slow_compute(a, cx).await
    }

    async fn failing_job(&self, _: FailingJobArgs, _: Context) -> ToolResult {
        crate::tasks::failing_job().await
    }

    async fn confirm_delete(&self, a: ConfirmDeleteArgs, cx: Context) -> ToolResult {
        crate::tasks::confirm_delete(a, cx).await
    }

    async fn multi_input(&self, _: MultiInputArgs, cx: Context) -> ToolResult {
        crate::tasks::multi_input(cx).await
    }

    async fn test_tool_with_task(&self, _: TestToolWithTaskArgs, cx: Context) -> ToolResult {
        crate::tasks::test_tool_with_task(cx).await
    }

    async fn protocol_error_job(&self, _: ProtocolErrorJobArgs, _: Context) -> ToolResult {
        crate::tasks::protocol_error_job().await
    }

    async fn test_custom_headers(&self, a: TestCustomHeadersArgs, _: Context) -> ToolResult {
        Ok(format!(
            "region={} priority={} verbose={} query={}",
            a.region,
            a.priority,
            a.verbose.unwrap_or(false),
            a.query
        )
        .into())
    }

    async fn test_elicitation(&self, a: TestElicitationArgs, cx: Context) -> ToolResult {
        let question = Question::new(a.message)
            .field(
                Field::string("username")
                    .description("User's response")
                    .required(),
            )
            .field(
                Field::string("email")
                    .description("User's email address")
                    .required(),
            );
        Ok(format!("User response: {}", said(&cx, question).await?).into())
    }

    async fn test_elicitation_sep1034_defaults(
        &self,
        _: TestElicitationSep1034DefaultsArgs,
        cx: Context,
    ) -> ToolResult {
        let question = Question::new("Please review and update the form fields with defaults")
            .field(Field::string("name").default("John Doe"))
            .field(Field::integer("age").default(30))
            .field(Field::number("score").default(95.5))
            .field(Field::one_of("status", ["active", "inactive", "pending"]).default("active"))
            .field(Field::boolean("verified").default(true));
        Ok(format!("Elicitation completed: {}", said(&cx, question).await?).into())
    }

    async fn test_elicitation_sep1330_enums(
        &self,
        _: TestElicitationSep1330EnumsArgs,
        cx: Context,
    ) -> ToolResult {
        let question = Question::new("Please select options from the enum fields")
            .field(Field::one_of(
                "untitledSingle",
                ["option1", "option2", "option3"],
            ))
            .field(Field::one_of_titled(
                "titledSingle",
                [
                    ("value1", "First Option"),
                    ("value2", "Second Option"),
                    ("value3", "Third Option"),
                ],
            ))
            .field(Field::one_of_enum_names(
                "legacyEnum",
                [
                    ("opt1", "Option One"),
                    ("opt2", "Option Two"),
                    ("opt3", "Option Three"),
                ],
            ))
            .field(Field::many_of(
                "untitledMulti",
                ["option1", "option2", "option3"],
            ))
            .field(Field::many_of_titled(
                "titledMulti",
                [
                    ("value1", "First Choice"),
                    ("value2", "Second Choice"),
                    ("value3", "Third Choice"),
                ],
            ));
        Ok(format!("Elicitation completed: {}", said(&cx, question).await?).into())
    }
}

/// A form of one required string, `name`, under `key`.
fn name_question(key: &str, message: &str) -> Question {
    Question::new(message)
        .key(key)
        .field(Field::string("name").required())
}

/// The `name` the person gave.
async fn answer(cx: &Context, question: Question) -> Result<String, ToolError> {
    match cx.ask(question).await.map_err(asked)? {
        Answer::Accept(answers) => Ok(answers.get::<String>("name")?),
        _ => Ok("nobody".to_owned()),
    }
}

/// A confirmation, through a signed `requestState` on 2026-07-28: the
/// library opens it (its signature, its call) before the handler runs
/// again, so an answer here is one whose state checked out.
async fn confirmed(cx: &Context) -> ToolResult {
    let question = Question::new("Please confirm")
        .key("confirm")
        .field(Field::boolean("ok").required());
    match cx.ask(question).await.map_err(asked)? {
        Answer::Accept(answers) => {
            Ok(format!("state-ok: confirmed={}", answers.get::<bool>("ok")?).into())
        }
        _ => Ok("state-ok: not confirmed".into()),
    }
}

/// A question or a sampling that failed, as the tool's error.
fn asked(e: toolmetadata::ask::AskError) -> ToolError {
    ToolError::new(e.to_string())
}

/// What the person did with `question`, as the suite's tools say it:
/// `action=accept, content={…}`.
async fn said(cx: &Context, question: Question) -> Result<String, ToolError> {
    match cx.ask(question).await {
        Ok(Answer::Accept(answers)) => Ok(format!(
            "action=accept, content={}",
            serde_json::Value::Object(answers.values().clone())
        )),
        Ok(Answer::Decline) => Ok("action=decline, content={}".to_owned()),
        Ok(Answer::Cancel) => Ok("action=cancel, content={}".to_owned()),
        Err(e) => Err(ToolError::new(e.to_string())),
    }
}
