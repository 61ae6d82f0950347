use toolmetadata::args::Map;
use toolmetadata::{CallOutcome, Context, ToolResult};

mod tools {
    toolmetadata::include_tools!();
}

struct Echo;

impl tools::Tools for Echo {
    async fn search_notes(&self, args: tools::SearchNotesArgs, _cx: Context) -> ToolResult {
        Ok(format!("{} (at most {})", args.query, args.limit).into())
    }
}

#[tokio::main]
async fn main() {
    let set = tools::tool_set(Echo);
    let mut args = Map::new();
    args.insert("query".into(), "milk".into());
    let call = set.call("search_notes", args, Context::new("search_notes"));
    match call.expect("a tool of the set").await {
        CallOutcome::Output(output) => assert_eq!(output.text_content(), "milk (at most 10)"),
        other => panic!("{other:?}"),
    }
}
