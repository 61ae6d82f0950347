use toolmetadata::server::{Server, ServerError};
use toolmetadata::{Context, ToolResult};

mod tools {
    toolmetadata::include_tools!();
}

const NOTES: &[&str] = &["buy milk", "call Ada", "milk the cow"];

struct Notes;

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
}

#[tokio::main]
async fn main() -> Result<(), ServerError> {
    Server::builder()
        .tool_set(tools::tool_set(Notes))
        .build()?
        .serve_stdio()
        .await
}
