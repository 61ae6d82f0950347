//! The profiles: their names and the rules each checks.

use super::rules::{self, Rule};

/// A provider's (or the hosts') rules for tool definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Profile {
    /// OpenAI function calling with `strict: true` (structured outputs).
    OpenAiStrict,
    /// OpenAI function calling, not strict.
    OpenAi,
    /// Anthropic tool use.
    Anthropic,
    /// Anthropic strict tool use (`strict: true`).
    AnthropicStrict,
    /// Gemini `functionDeclarations` with `parameters` (an OpenAPI subset).
    Gemini,
    /// Gemini `functionDeclarations` with `parametersJsonSchema`.
    GeminiJson,
    /// The name and count budgets of the major MCP hosts (Claude Code's
    /// `mcp__<server>__` prefix, Copilot's 128 tools).
    McpHosts,
}

impl Profile {
    /// Every profile.
    pub const ALL: &'static [Profile] = &[
        Profile::OpenAiStrict,
        Profile::OpenAi,
        Profile::Anthropic,
        Profile::AnthropicStrict,
        Profile::Gemini,
        Profile::GeminiJson,
        Profile::McpHosts,
    ];

    /// The profile's name: `openai-strict`, `openai`, `anthropic`,
    /// `anthropic-strict`, `gemini`, `gemini-json` or `mcp-hosts`.
    pub fn name(self) -> &'static str {
        match self {
            Profile::OpenAiStrict => "openai-strict",
            Profile::OpenAi => "openai",
            Profile::Anthropic => "anthropic",
            Profile::AnthropicStrict => "anthropic-strict",
            Profile::Gemini => "gemini",
            Profile::GeminiJson => "gemini-json",
            Profile::McpHosts => "mcp-hosts",
        }
    }

    /// The profile named `name` ([`Profile::name`]).
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.iter().copied().find(|p| p.name() == name)
    }

    /// The rules this profile checks, each citing its source.
    pub fn rules(self) -> &'static [Rule] {
        use rules::*;
        match self {
            Profile::OpenAiStrict => &[
                NAME_ASCII,
                ROOT_OBJECT,
                OBJECT_PROPERTIES,
                ARRAY_ITEMS,
                STRICT_ALL_REQUIRED,
                STRICT_NO_ADDITIONAL,
                STRICT_KEYWORDS,
                STRICT_LIMITS,
            ],
            Profile::OpenAi => &[NAME_ASCII, ROOT_OBJECT, OBJECT_PROPERTIES, ARRAY_ITEMS],
            Profile::Anthropic => &[NAME_ASCII, ROOT_OBJECT],
            Profile::AnthropicStrict => &[
                NAME_ASCII,
                ROOT_OBJECT,
                STRICT_NO_ADDITIONAL,
                ANTHROPIC_STRICT_BOUNDS,
            ],
            Profile::Gemini => &[
                NAME_GEMINI,
                GEMINI_KEYWORDS,
                GEMINI_SINGLE_TYPE,
                GEMINI_NONEMPTY_OBJECT,
                GEMINI_STRING_ENUM,
                GEMINI_FORMAT,
            ],
            Profile::GeminiJson => &[NAME_GEMINI, GEMINI_JSON_OBJECT],
            Profile::McpHosts => &[HOST_PREFIXED_NAME, HOST_TOOL_COUNT],
        }
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
