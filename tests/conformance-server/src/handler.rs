//! The suite's test tools: each returns what its scenario's "Server
//! Implementation Requirements" say.

use std::time::Duration;

use toolmetadata::{Content, Context, ToolError, ToolOutput, ToolResult};

use crate::tools::*;
use crate::{PNG, WAV};

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
}
