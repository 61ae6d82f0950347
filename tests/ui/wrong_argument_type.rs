//! A handler method that takes another tool's arguments does not compile.
use toolmetadata::{Context, ToolResult};
use toolmetadata_fixture::strict::Tools;
use toolmetadata_fixture::tools::CloneArgs;

struct Handler;

impl Tools for Handler {
    async fn set_limit(&self, args: CloneArgs, _cx: Context) -> ToolResult {
        Ok(args.r#type.into())
    }
}

fn main() {}
