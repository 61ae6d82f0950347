use notes::{Notes, tools};
use toolmetadata::args::Map;
use toolmetadata::{CallOutcome, Context};

#[tokio::main]
async fn main() {
    let set = tools::tool_set(Notes);
    let mut args = Map::new();
    args.insert("query".into(), "milk".into());
    let call = set.call("search_notes", args, Context::new("search_notes"));
    match call.expect("a tool of the set").await {
        CallOutcome::Output(output) => assert_eq!(output.text_content(), "buy milk\nmilk the cow"),
        other => panic!("{other:?}"),
    }
}
