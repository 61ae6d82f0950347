//! What a handler returns: [`ToolResult`], its output ([`ToolOutput`]: text, JSON,
//! content blocks, structured content) and its error ([`ToolError`]).

use std::fmt;

use serde_json::Value;

/// What a handler returns; `T` is [`ToolOutput`] (or anything that converts into
/// it), or the generated output struct of a tool with `[[output]]`.
pub type ToolResult<T = ToolOutput> = Result<T, ToolError>;

/// A block of content in a tool result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Content {
    /// Text.
    Text(String),
    /// An image, base64-encoded.
    Image {
        /// The base64 data.
        data: String,
        /// Its MIME type, such as `image/png`.
        mime_type: String,
    },
    /// Audio, base64-encoded; an MCP `audio` content block.
    Audio {
        /// The base64 data.
        data: String,
        /// Its MIME type, such as `audio/wav`.
        mime_type: String,
    },
    /// A text document as an embedded resource (an MCP `resource` content
    /// block holding `TextResourceContents`): a file's text with its URI
    /// and type, which a client can show or keep apart from the reply.
    Document {
        /// The resource's URI, such as `file:///srv/notes/plan.md`.
        uri: String,
        /// Its MIME type, such as `text/markdown`, when known.
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary data as an embedded resource (an MCP `resource` content block
    /// holding `BlobResourceContents`), for content that is neither text,
    /// image nor audio.
    Blob {
        /// The resource's URI, such as `file:///srv/data/archive.zip`.
        uri: String,
        /// Its MIME type, such as `application/zip`, when known.
        mime_type: Option<String>,
        /// The base64 data.
        data: String,
    },
}

/// A successful tool result: content blocks, and structured content for tools
/// that declare an output schema.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    content: Vec<Content>,
    structured: Option<Value>,
}

impl ToolOutput {
    /// One text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![Content::Text(text.into())],
            structured: None,
        }
    }

    /// One text block holding `value` as JSON.
    pub fn json(value: &impl serde::Serialize) -> Result<Self, ToolError> {
        let text = serde_json::to_string(value)
            .map_err(|e| ToolError::new(format!("the result is not JSON: {e}")))?;
        Ok(Self::text(text))
    }

    /// Structured content, with a text copy for clients that only read text.
    pub fn structured(value: Value) -> Self {
        ToolOutput {
            content: vec![Content::Text(value.to_string())],
            structured: Some(value),
        }
    }

    /// Structured content whose text is `template` rendered from it (a
    /// tool's `outputText`, [`crate::metadata::output_text`]), for models that read
    /// only text.
    pub fn structured_as_text(value: Value, template: &str) -> Self {
        ToolOutput {
            content: vec![Content::Text(crate::metadata::output_text::render(
                template, &value,
            ))],
            structured: Some(value),
        }
    }

    /// This output with its text rendered by `template` from its structured
    /// content, when its only content is the JSON copy
    /// [`ToolOutput::structured`] made (a run-time tool with `outputText`).
    pub fn with_output_text(self, template: &str) -> Self {
        let is_copy = |value: &Value| {
            matches!(self.content.as_slice(), [Content::Text(text)]
                if serde_json::from_str::<Value>(text).ok().as_ref() == Some(value))
        };
        match self.structured {
            Some(ref value) if is_copy(value) => {
                let value = value.clone();
                Self::structured_as_text(value, template)
            }
            _ => self,
        }
    }

    /// Any content blocks.
    pub fn content(content: Vec<Content>) -> Self {
        ToolOutput {
            content,
            structured: None,
        }
    }

    /// The content blocks.
    pub fn blocks(&self) -> &[Content] {
        &self.content
    }

    /// The structured content, if any.
    pub fn structured_content(&self) -> Option<&Value> {
        self.structured.as_ref()
    }

    /// The text of all text blocks, joined by newlines.
    pub fn text_content(&self) -> String {
        self.content
            .iter()
            .filter_map(|c| match c {
                Content::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl From<String> for ToolOutput {
    /// One text block.
    fn from(text: String) -> Self {
        ToolOutput::text(text)
    }
}

impl From<&str> for ToolOutput {
    /// One text block.
    fn from(text: &str) -> Self {
        ToolOutput::text(text)
    }
}

/// What a handler's `Ok` value becomes in the result.
pub trait IntoToolOutput {
    /// Converts into content and structured content.
    fn into_tool_output(self) -> ToolOutput;
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> ToolOutput {
        self
    }
}

impl IntoToolOutput for String {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::text(self)
    }
}

impl IntoToolOutput for &str {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::text(self)
    }
}

impl IntoToolOutput for Value {
    /// JSON as text; use [`ToolOutput::structured`] for structured content.
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::text(self.to_string())
    }
}

impl IntoToolOutput for Vec<Content> {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::content(self)
    }
}

/// A tool's failure, shown to the model as an error result (`isError: true`).
///
/// Any error converts with `?`; its `Display` (and its sources') becomes the
/// message.
pub struct ToolError {
    message: String,
    failure: Option<Failure>,
}

/// What a declared failure says besides its message (`[[failures]]`): the
/// server sends it in the result's `_meta`, for clients to act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The declared code.
    pub code: std::borrow::Cow<'static, str>,
    /// Whose failure it is.
    pub class: crate::metadata::FailureClass,
    /// Whether the same call may succeed later.
    pub retryable: bool,
}

impl ToolError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            failure: None,
        }
    }

    /// A failure the tool declares (`[[failures]]`), with this message: the
    /// generated `{Tool}Failure::Code.error(message)` makes these.
    pub fn declared(
        code: &'static str,
        class: crate::metadata::FailureClass,
        retryable: bool,
        message: impl Into<String>,
    ) -> Self {
        ToolError {
            message: message.into(),
            failure: Some(Failure {
                code: std::borrow::Cow::Borrowed(code),
                class,
                retryable,
            }),
        }
    }

    /// The message shown to the model.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The declared failure, when it is one.
    pub fn failure(&self) -> Option<&Failure> {
        self.failure.as_ref()
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolError")
            .field("message", &self.message)
            .field("failure", &self.failure)
            .finish()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error> From<E> for ToolError {
    fn from(error: E) -> Self {
        let mut message = error.to_string();
        let mut source = error.source();
        while let Some(s) = source {
            message.push_str(": ");
            message.push_str(&s.to_string());
            source = s.source();
        }
        ToolError::new(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_convert_with_their_sources() {
        fn read() -> Result<(), ToolError> {
            let e = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
            Err(e)?;
            Ok(())
        }
        assert_eq!(read().unwrap_err().message(), "no such file");
    }

    #[test]
    fn outputs() {
        assert_eq!(ToolOutput::text("hi").text_content(), "hi");
        let s = ToolOutput::structured(serde_json::json!({"a": 1}));
        assert_eq!(s.text_content(), r#"{"a":1}"#);
        assert_eq!(s.structured_content(), Some(&serde_json::json!({"a": 1})));
    }
}
