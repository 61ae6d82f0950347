//! What each provider publishes about tool definitions, as data: every rule
//! with the document it comes from. `validate` checks them, `export` writes
//! definitions that keep them.

/// A rule a provider (or host) sets for tool definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable id, `profile/rule`, such as `openai-strict/all-required`.
    pub id: &'static str,
    /// What the provider requires.
    pub says: &'static str,
    /// Where it is published.
    pub source: &'static str,
}

macro_rules! rules {
    ($($name:ident = $id:literal, $says:literal, $source:literal;)*) => {
        $(
            #[doc = $says]
            pub const $name: Rule = Rule { id: $id, says: $says, source: $source };
        )*
    };
}

rules! {
    NAME_ASCII = "name/ascii-64",
        "A tool name matches ^[a-zA-Z0-9_-]{1,64}$",
        "OpenAI: openai-python `function_definition.py` (name); Anthropic: platform.claude.com, \"Define tools\" (name); the Responses API refuses dotted MCP names: openai/codex#8174";
    NAME_GEMINI = "gemini/name",
        "A function name starts with a letter or `_`, uses letters, digits, `_`, `.`, `:` and `-`, and has at most 64 characters",
        "ai.google.dev API reference, `FunctionDeclaration.name`; 64 characters in the API's error texts";
    ROOT_OBJECT = "schema/root-object",
        "The parameters are a JSON Schema with `type: \"object\"` at the root (not `anyOf`)",
        "OpenAI function calling guide (parameters); vercel/ai#7005; Anthropic \"Define tools\" (input_schema)";
    OBJECT_PROPERTIES = "schema/object-properties",
        "An object schema has `properties`",
        "langchain-ai/langchain-mcp-adapters#137";
    ARRAY_ITEMS = "schema/array-items",
        "An array schema has `items`",
        "apify/apify-mcp-server#36";
    STRICT_ALL_REQUIRED = "openai-strict/all-required",
        "Every property is in `required`; an optional one is a union with `null`",
        "OpenAI structured outputs guide, \"Supported schemas\": all fields must be required";
    STRICT_NO_ADDITIONAL = "strict/additional-properties-false",
        "Every object has `additionalProperties: false`",
        "OpenAI structured outputs guide: additionalProperties false must always be set; Anthropic strict tool use (structured outputs)";
    STRICT_KEYWORDS = "openai-strict/keywords",
        "No `allOf`, `not`, `dependentRequired`, `dependentSchemas`, `if`/`then`/`else`, nor `default`; `format` only date-time, time, date, duration, email, hostname, ipv4, ipv6 or uuid",
        "OpenAI structured outputs guide, \"Supported schemas\"; `default` refused: dotnet/extensions#6196";
    STRICT_LIMITS = "openai-strict/limits",
        "At most 5,000 properties, 10 levels of nesting, 1,000 enum values and 120,000 characters of names, enum values and consts",
        "OpenAI structured outputs guide: objects have limitations on nesting depth and size";
    ANTHROPIC_STRICT_BOUNDS = "anthropic-strict/bounds",
        "No `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minLength` or `maxLength`; of the array keywords only `minItems`, 0 or 1 (no `maxItems`, `uniqueItems`, `contains`, `minContains`, `maxContains`)",
        "Anthropic structured outputs (strict tool use), JSON Schema limitations; the SDKs move these into the description";
    GEMINI_KEYWORDS = "gemini/openapi-subset",
        "Only type, format, title, description, nullable, enum, items, properties, required, minItems, maxItems, minProperties, maxProperties, minLength, maxLength, pattern, minimum, maximum, anyOf, default, example and propertyOrdering (so no `additionalProperties`)",
        "ai.google.dev API reference, `Schema`; `additionalProperties` refused: brainlid/langchain#599";
    GEMINI_SINGLE_TYPE = "gemini/single-type",
        "`type` is one type name; a nullable value says `nullable: true`",
        "ai.google.dev API reference, `Schema` (type, nullable)";
    GEMINI_NONEMPTY_OBJECT = "gemini/nonempty-properties",
        "An object has at least one property (a function without parameters has no `parameters`)",
        "agno-agi/agno#2112";
    GEMINI_STRING_ENUM = "gemini/string-enum",
        "`enum` is given for strings only",
        "ai.google.dev API reference, `Schema.enum` (for a STRING type)";
    GEMINI_FORMAT = "gemini/format",
        "`format` is only `enum` or `date-time`",
        "ai.google.dev API reference, `Schema.format` (Developer API)";
    GEMINI_JSON_OBJECT = "gemini-json/object",
        "`parametersJsonSchema` describes an object, without `$schema`",
        "ai.google.dev API reference, `FunctionDeclaration.parametersJsonSchema`; google-gemini/gemini-cli#4176";
    HOST_PREFIXED_NAME = "mcp-hosts/prefixed-name",
        "`mcp__<server>__<tool>` fits in 64 characters of ^[a-zA-Z0-9_-]+$, as Claude Code names a server's tools",
        "anthropics/claude-code#19882; Claude Desktop withholds a server whose one name fails (loomle#168)";
    HOST_TOOL_COUNT = "mcp-hosts/tool-count",
        "At most 128 tools in one request",
        "GitHub Copilot: a request carries at most 128 tools";
}
