//! `limit` was a string before the metadata made it an `int`: code still
//! treating it as a string does not compile.
use toolmetadata::{Context, ToolResult};
use toolmetadata_fixture::strict::{SetLimitArgs, Tools};

struct Handler;

impl Tools for Handler {
    async fn set_limit(&self, args: SetLimitArgs, _cx: Context) -> ToolResult {
        let limit: String = args.limit;
        Ok(limit.into())
    }
}

fn main() {}
