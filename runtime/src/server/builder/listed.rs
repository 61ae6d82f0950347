//! A generated tool's entry as the `Tool` every `tools/list` clones: its
//! strings kept in the program's text where they can be, and its identity
//! (fingerprint, version) in its `_meta`.

use std::borrow::Cow;

use rmcp::model::Tool;

use toolmetadata_core::codegen::ToolEntry;

/// `tool` with its name and description borrowed from the generated
/// program's text where they are written there as they read (no escapes):
/// every `tools/list` clones each listed tool, and a borrowed string is not
/// copied.
pub(super) fn in_program_text(mut tool: Tool, entry: &'static ToolEntry) -> Tool {
    /// The description as written in the entry, when it has no escapes.
    #[derive(serde::Deserialize)]
    struct Written<'a> {
        #[serde(default, borrow)]
        description: Option<&'a str>,
    }
    if tool.name == entry.name {
        tool.name = Cow::Borrowed(entry.name);
    }
    if let Ok(Written {
        description: Some(written),
    }) = serde_json::from_str(entry.entry_json)
        && tool.description.as_deref() == Some(written)
    {
        tool.description = Some(Cow::Borrowed(written));
    }
    tool
}

/// `tool` with what identifies its contract in its `_meta`: the fingerprint
/// of its rendered `entry` (the one its catalog lock records; the same on
/// every instance) and its `toolVersion`, when declared.
pub(super) fn identified(mut tool: Tool, entry: &serde_json::Value, version: Option<&str>) -> Tool {
    let meta = tool.meta.get_or_insert_with(Default::default);
    meta.0.insert(
        crate::server::catalog::FINGERPRINT_META.to_owned(),
        serde_json::Value::String(crate::fingerprint::fingerprint(entry)),
    );
    if let Some(version) = version {
        meta.0.insert(
            crate::server::catalog::VERSION_META.to_owned(),
            serde_json::Value::String(version.to_owned()),
        );
    }
    tool
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::in_program_text;
    use toolmetadata_core::codegen::ToolEntry;

    static PLAIN: ToolEntry = ToolEntry::new(
        "read_notes",
        r#"{"name":"read_notes","description":"Read the notes","inputSchema":{"type":"object","properties":{"q":{"description":"nested","type":"string"}}}}"#,
    );
    static ESCAPED: ToolEntry = ToolEntry::new(
        "say",
        r#"{"name":"say","description":"Say \"hi\"\nand go","inputSchema":{"type":"object"}}"#,
    );

    static NO_DESCRIPTION: ToolEntry = ToolEntry::new(
        "quiet",
        r#"{"name":"quiet","description":null,"inputSchema":{"type":"object"}}"#,
    );
    // Not what the build writes, but a hand-made entry may: rmcp keeps the
    // last, and nothing is borrowed.
    static TWICE: ToolEntry = ToolEntry::new(
        "twice",
        r#"{"name":"twice","description":"first","description":"second","inputSchema":{"type":"object"}}"#,
    );
    // An entry whose `name` is not the tool's (the fields are public).
    static RENAMED: ToolEntry = ToolEntry::new(
        "other",
        r#"{"name":"renamed","description":"Renamed","inputSchema":{"type":"object"}}"#,
    );

    #[test]
    fn a_listed_tool_borrows_the_strings_its_entry_has_as_they_read() {
        let borrowed = |entry: &'static ToolEntry| {
            // As the builder reads an entry: its JSON, then the tool.
            let json: serde_json::Value = serde_json::from_str(entry.entry_json).expect("JSON");
            let tool: rmcp::model::Tool = serde_json::from_value(json).expect("a tool");
            let tool = in_program_text(tool, entry);
            let text = tool.description.clone().unwrap_or_default();
            (
                matches!(tool.name, Cow::Borrowed(_)),
                matches!(tool.description, Some(Cow::Borrowed(_))),
                text.into_owned(),
            )
        };
        assert_eq!(borrowed(&PLAIN), (true, true, "Read the notes".to_owned()));
        // An escaped description is not the entry's text: it stays a copy.
        assert_eq!(
            borrowed(&ESCAPED),
            (true, false, "Say \"hi\"\nand go".to_owned())
        );
        assert_eq!(borrowed(&NO_DESCRIPTION), (true, false, String::new()));
        assert_eq!(borrowed(&TWICE), (true, false, "second".to_owned()));
        assert_eq!(borrowed(&RENAMED), (false, true, "Renamed".to_owned()));
    }
}
