//! The JSON Schema keywords each provider's grammar refuses or takes: what
//! export moves into a description and what validation reports.

/// Keywords OpenAI's strict mode refuses (beside `default` and formats).
pub(super) const OPENAI_STRICT_REFUSED: &[&str] = &[
    "allOf",
    "not",
    "dependentRequired",
    "dependentSchemas",
    "if",
    "then",
    "else",
];
/// The formats OpenAI's strict mode takes.
pub(super) const OPENAI_STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
/// The bounds Anthropic's strict tools refuse (`minItems` above 1 too).
pub(super) const ANTHROPIC_STRICT_REFUSED: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    // Of the array keywords, strict takes only `minItems` 0 or 1.
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
];
/// The keywords of Gemini's `Schema`.
pub(super) const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "properties",
    "required",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
    "default",
    "example",
    "propertyOrdering",
];
/// Keywords that constrain nothing a model sends: dropped where refused,
/// not moved into a description.
pub(super) const ANNOTATIONS: &[&str] = &["$schema", "$id", "$comment", "title", "examples"];
