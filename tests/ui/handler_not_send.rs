//! A handler whose future is not `Send` (it holds an `Rc` across an await) does
//! not compile: servers run handlers on a multi-threaded runtime.
use std::rc::Rc;

use toolmetadata::{Context, ToolResult};
use toolmetadata_fixture::strict::{SetLimitArgs, Tools};

struct Handler;

async fn log(_: &str) {}

impl Tools for Handler {
    async fn set_limit(&self, args: SetLimitArgs, _cx: Context) -> ToolResult {
        let shared = Rc::new(args.limit);
        log("setting the limit").await;
        Ok(shared.to_string().into())
    }
}

fn main() {}
