//! The request a round of input requests belongs to (a `tools/call` or a
//! `prompts/get`), and what binds a `requestState` to it.

use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value};

/// The request a round of input requests belongs to: a `tools/call` or a
/// `prompts/get`, with what a retry brings back.
pub(crate) struct Attempt<'a> {
    /// What kind of request the state is bound to: a tool's and a
    /// prompt's state never open each other, whatever their names.
    pub(super) domain: &'static [u8],
    /// The tool's or the prompt's name, as the request names it.
    pub(super) target: &'a str,
    pub(super) arguments: Option<&'a Map<String, Value>>,
    /// The values of the tool's bound parameters (from the token and the
    /// request's headers), bound too.
    pub(super) bound: Map<String, Value>,
    pub(super) request_state: Option<&'a str>,
    pub(super) input_responses: Option<&'a rmcp::model::InputResponses>,
}

impl<'a> Attempt<'a> {
    /// A `tools/call`, whose bound parameters take `bound`.
    pub(crate) fn of_call(request: &'a CallToolRequestParams, bound: Map<String, Value>) -> Self {
        Attempt {
            domain: b"toolmetadata/ask/v4\0",
            target: &request.name,
            arguments: request.arguments.as_ref(),
            bound,
            request_state: request.request_state.as_deref(),
            input_responses: request.input_responses.as_ref(),
        }
    }

    /// A `prompts/get`.
    #[cfg(feature = "prompts")]
    pub(crate) fn of_prompt(request: &'a rmcp::model::GetPromptRequestParams) -> Self {
        Attempt {
            domain: b"toolmetadata/ask/prompt/v1\0",
            target: &request.name,
            arguments: request.arguments.as_ref(),
            bound: Map::new(),
            request_state: request.request_state.as_deref(),
            input_responses: request.input_responses.as_ref(),
        }
    }
}

/// The associated data that binds a state to one call: the kind of request
/// (`domain`), the principal (when there is one), the tool or prompt, a
/// digest of its arguments as JSON (object keys sorted, so it is
/// canonical), and one of the values its bound parameters took (none for a
/// prompt). The arguments are hashed as they are written, never held as
/// text: a call of several megabytes costs no copy.
pub(super) fn binding(
    domain: &[u8],
    subject: Option<&str>,
    tool: &str,
    args: Option<&Map<String, Value>>,
    bound: &Map<String, Value>,
) -> Vec<u8> {
    use sha2::Digest;
    let mut data = domain.to_vec();
    if let Some(subject) = subject {
        data.push(1);
        data.extend_from_slice(&(subject.len() as u64).to_be_bytes());
        data.extend_from_slice(subject.as_bytes());
    } else {
        data.push(0);
    }
    data.extend_from_slice(tool.as_bytes());
    data.push(0);
    let mut arguments = Hashing(sha2::Sha256::new());
    if let Some(args) = args {
        // Writing to a hash cannot fail, nor can a map of JSON values.
        let _ = serde_json::to_writer(&mut arguments, args);
    }
    data.extend_from_slice(&arguments.0.finalize());
    let mut values = Hashing(sha2::Sha256::new());
    let _ = serde_json::to_writer(&mut values, bound);
    data.extend_from_slice(&values.0.finalize());
    data
}

/// A hash that JSON is written to.
struct Hashing(sha2::Sha256);

impl std::io::Write for Hashing {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        sha2::Digest::update(&mut self.0, bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
