use sha2::Digest;

use super::wire::sampling_params;
use super::*;

/// A state binds each answer to a digest of the request shown (`State::shown`).
/// States sealed by earlier versions hashed a sampling request's JSON text, keys
/// sorted; a retry carrying one must still find its answers.
#[test]
fn a_sampling_request_is_digested_as_earlier_versions_did() {
    let sampling = Sampling::new("Capital?", 5).system_prompt("Brief");
    let text = r#"{"maxTokens":5,"messages":[{"content":{"text":"Capital?","type":"text"},"role":"user"}],"systemPrompt":"Brief"}"#;
    let expected = toolmetadata_core::seam::hex(&sha2::Sha256::digest(text.as_bytes())[..16]);
    assert_eq!(
        Pending::Sampling(sampling).digest(),
        Value::String(expected)
    );
}

#[test]
fn a_request_reads_as_mcp_writes_it() {
    let request = Sampling::new("Capital of France?", 100)
        .assistant("Paris.")
        .user("And of Italy?")
        .system_prompt("Be brief");
    assert_eq!(
        serde_json::to_value(sampling_params(&request)).expect("JSON"),
        serde_json::json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Capital of France?"}},
                {"role": "assistant", "content": {"type": "text", "text": "Paris."}},
                {"role": "user", "content": {"type": "text", "text": "And of Italy?"}}
            ],
            "maxTokens": 100,
            "systemPrompt": "Be brief"
        })
    );
}
