//! The keys the format knows, table by table: what the reader accepts
//! (case-insensitively) and offers as "did you mean".

pub(crate) const TOP_KEYS: &[&str] = &[
    "description",
    "title",
    "keywords",
    "discoverable",
    "parameters",
    "readOnly",
    "destructive",
    "idempotent",
    "openWorld",
    "ui",
    "icons",
    "output",
    "outputText",
    "confirm",
    "task",
    "scopes",
    "toolVersion",
    "toolGroups",
    "limits",
    "lints",
    "failures",
];
pub(crate) const PARAM_KEYS: &[&str] = &[
    "name",
    "type",
    "description",
    "required",
    "enum",
    "default",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "header",
    "from",
];
pub(crate) const UI_KEYS: &[&str] = &["resourceUri", "visibility"];
pub(crate) const CONFIRM_KEYS: &[&str] = &["message", "unsupported"];
pub(crate) const LIMITS_KEYS: &[&str] = &["timeout", "concurrency", "rate"];
/// The rules a tool's `[lints]` may set the level of: the build's findings
/// that are not the format's own errors.
pub(crate) const LINT_KEYS: &[&str] = &[
    "quality-description",
    "quality-enum",
    "quality-hints",
    "quality-confirm",
    "quality-duplicate",
    "lone-group",
    "client-tool-name",
];
pub(crate) const FAILURE_KEYS: &[&str] = &["code", "class", "retryable", "description"];
pub(crate) const ICON_KEYS: &[&str] = &["src", "mimeType", "sizes", "theme"];

/// The "did you mean" of an unknown top-level key.
#[cfg(test)]
mod tests {
    use super::TOP_KEYS;
    use toolmetadata_core::closest;

    #[test]
    fn suggests_what_was_meant() {
        for (input, expected) in [
            ("desc", "description"),
            ("read_only", "readOnly"),
            ("readOnlyHint", "readOnly"),
            ("dis_coverable", "discoverable"),
            ("key_words", "keywords"),
            ("deſcription", "description"),
            ("params", "parameters"),
            ("Dis-coverable", "discoverable"),
        ] {
            assert_eq!(closest(input, TOP_KEYS), Some(expected), "{input}");
        }
    }

    #[test]
    fn stays_quiet_when_nothing_is_close() {
        for input in [
            "author",
            "enabled",
            "extra",
            "x-custom",
            "_meta",
            "",
            "annotations",
        ] {
            assert_eq!(closest(input, TOP_KEYS), None, "{input}");
        }
    }
}
