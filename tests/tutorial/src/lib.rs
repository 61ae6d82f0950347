//! The tutorial's tools: the code generated from `tools/`, and the handler
//! that implements it.

use toolmetadata::{Context, ToolResult};

/// The code `build.rs` generated from `tools/`.
pub mod tools {
    toolmetadata::include_tools!();
}

const NOTES: &[&str] = &["buy milk", "call Ada", "milk the cow"];

/// The tools' handler: one method per tool file.
pub struct Notes;

impl tools::Tools for Notes {
    async fn search_notes(&self, args: tools::SearchNotesArgs, _cx: Context) -> ToolResult {
        let hits: Vec<&str> = NOTES
            .iter()
            .copied()
            .filter(|note| note.contains(args.query.as_str()))
            .take(args.limit as usize)
            .collect();
        Ok(hits.join("\n").into())
    }

    async fn archive_note(&self, args: tools::ArchiveNoteArgs, _cx: Context) -> ToolResult {
        // Runs only once the person said yes to the question of `[confirm]`.
        Ok(format!("archived \"{}\"", args.note).into())
    }

    async fn note_stats(
        &self,
        _args: tools::NoteStatsArgs,
        _cx: Context,
    ) -> ToolResult<tools::NoteStatsOutput> {
        // The typed output of `[[output]]`: a field without `required = true`
        // is an `Option`.
        Ok(tools::NoteStatsOutput {
            count: NOTES.len() as i64,
            longest: NOTES
                .iter()
                .max_by_key(|note| note.len())
                .map(|note| note.to_string()),
        })
    }

    async fn count_words(&self, _args: tools::CountWordsArgs, _cx: Context) -> ToolResult {
        let words: usize = NOTES
            .iter()
            .map(|note| note.split_whitespace().count())
            .sum();
        Ok(format!("{words} words").into())
    }
}
