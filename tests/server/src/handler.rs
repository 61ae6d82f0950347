//! The handlers of the generated tools: one result kind each, plus a failure, a
//! panic, a slow call that watches for cancellation and one that reports progress.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use toolmetadata::ask::{Answer, Field, Question};
use toolmetadata::sampling::Sampling;
use toolmetadata::{Context, ContextExt, ToolError, ToolOutput, ToolResult};

use crate::tools::*;

#[derive(Default)]
pub(crate) struct Handler {
    cancellations: Arc<AtomicUsize>,
    /// Runs of the confirmed tools' handlers, so a test can tell that a
    /// declined call never ran.
    confirmed_runs: AtomicUsize,
}

impl Tools for Handler {
    async fn archive(&self, args: ArchiveArgs, _: Context) -> ToolResult {
        let run = self.confirmed_runs.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(format!("archived {} at {} (run #{run})", args.path, args.level).into())
    }

    async fn boom(&self, _: BoomArgs, _: Context) -> ToolResult {
        panic!("boom: a handler bug")
    }

    async fn crash_job(&self, _: CrashJobArgs, _: Context) -> ToolResult {
        tokio::task::yield_now().await;
        panic!("crash_job: a handler bug inside a task")
    }

    async fn cancellations(&self, _: CancellationsArgs, _: Context) -> ToolResult {
        Ok(self.cancellations.load(Ordering::SeqCst).to_string().into())
    }

    async fn deploy(&self, args: DeployArgs, cx: Context) -> ToolResult {
        // Counts this call as cancelled unless it gets to the end.
        let guard = CountOnDrop(Some(self.cancellations.clone()));
        let question = Question::new(format!("Deploy {}?", args.service))
            .field(Field::one_of("region", ["eu", "us"]).required())
            .field(Field::integer("replicas").default(1));
        let answer = cx.ask(question).await;
        guard.disarm();
        match answer? {
            Answer::Accept(answers) => {
                let region: String = answers.get("region")?;
                let replicas: i64 = answers.get("replicas").unwrap_or(1);
                Ok(format!("deployed {} to {region} x{replicas}", args.service).into())
            }
            Answer::Decline => Ok("not deployed: declined".into()),
            Answer::Cancel => Ok("not deployed: cancelled".into()),
        }
    }

    async fn echo(&self, args: EchoArgs, _: Context) -> ToolResult {
        Ok(vec![args.text; usize::try_from(args.times).unwrap_or(1)]
            .join(" ")
            .into())
    }

    async fn export(&self, _: ExportArgs, _: Context) -> ToolResult {
        Ok("exported".into())
    }

    async fn fail(&self, _: FailArgs, _: Context) -> ToolResult {
        Err(ToolError::new("fail: this tool always fails"))
    }

    async fn info(&self, _: InfoArgs, _: Context) -> ToolResult {
        ToolOutput::json(&serde_json_value())
    }

    async fn job(&self, args: JobArgs, cx: Context) -> ToolResult {
        let seconds = args.seconds.max(0);
        // Watching before saying "started", so that a client that waits for
        // it knows a cancellation from then on is counted.
        let counter = self.cancellations.clone();
        let watcher = cx.clone();
        tokio::spawn(async move {
            watcher.cancelled().await;
            counter.fetch_add(1, Ordering::SeqCst);
        });
        cx.progress(0.0, Some(seconds as f64), Some("started"))
            .await;
        tokio::time::sleep(Duration::from_secs(seconds as u64)).await;
        Ok(format!("job done after {seconds} s").into())
    }

    async fn progress(&self, args: ProgressArgs, cx: Context) -> ToolResult {
        for step in 1..=args.steps {
            cx.progress(
                step as f64,
                Some(args.steps as f64),
                Some(&format!("step {step}")),
            )
            .await;
        }
        Ok(format!("{} steps", args.steps).into())
    }

    async fn read_file(&self, args: ReadFileArgs, _: Context) -> ToolResult {
        Ok(format!("read {}", args.path).into())
    }

    async fn remove(&self, args: RemoveArgs, _: Context) -> ToolResult {
        let run = self.confirmed_runs.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(format!("removed {} (run #{run})", args.path).into())
    }

    async fn route(&self, args: RouteArgs, _: Context) -> ToolResult {
        Ok(match args.shard {
            Some(shard) => format!("routed to {} shard {shard}", args.region),
            None => format!("routed to {}", args.region),
        }
        .into())
    }

    async fn search_text(&self, args: SearchTextArgs, _: Context) -> ToolResult {
        Ok(format!("searched {}", args.pattern).into())
    }

    async fn slow(&self, args: SlowArgs, cx: Context) -> ToolResult {
        let counter = self.cancellations.clone();
        // The server drops this future on cancellation; the watcher task sees
        // the signal through the context, as a handler's helper thread would.
        let watcher = cx.clone();
        tokio::spawn(async move {
            watcher.cancelled().await;
            counter.fetch_add(1, Ordering::SeqCst);
        });
        tokio::time::sleep(Duration::from_secs(args.seconds.max(0) as u64)).await;
        Ok("slept".into())
    }

    async fn survey(&self, args: SurveyArgs, cx: Context) -> ToolResult {
        let question = |key: &str| {
            Question::new(format!("Your {key}?"))
                .key(key)
                .field(Field::string(key).required())
        };
        let (colour, food) = tokio::join!(cx.ask(question("colour")), cx.ask(question("food")));
        let said = |answer: Answer, key: &str| -> Result<String, ToolError> {
            match answer {
                Answer::Accept(answers) => Ok(answers.get(key)?),
                Answer::Decline | Answer::Cancel => Ok("(not said)".to_owned()),
            }
        };
        let mut told = format!(
            "colour: {}, food: {}",
            said(colour?, "colour")?,
            said(food?, "food")?
        );
        if args.dish == Some(true) {
            let dish = cx.sample(Sampling::new("A dish?", 20).key("dish")).await?;
            told.push_str(&format!(", dish: {}", dish.text().unwrap_or_default()));
        }
        Ok(told.into())
    }

    async fn throttled(&self, args: ThrottledArgs, cx: Context) -> ToolResult {
        // As `slow`: a cancellation seen through the context is counted.
        let counter = self.cancellations.clone();
        let watcher = cx.clone();
        tokio::spawn(async move {
            watcher.cancelled().await;
            counter.fetch_add(1, Ordering::SeqCst);
        });
        tokio::time::sleep(Duration::from_millis(args.millis.max(0) as u64)).await;
        Ok("done".into())
    }

    async fn stats(&self, args: StatsArgs, _: Context) -> ToolResult<StatsOutput> {
        let count = args.numbers.len();
        Ok(StatsOutput {
            count: count as i64,
            mean: args.numbers.iter().sum::<f64>() / count as f64,
        })
    }

    async fn whoami(&self, _: WhoamiArgs, cx: Context) -> ToolResult {
        let header = cx
            .http_request()
            .and_then(|parts| parts.headers.get("x-request-tag"))
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let meta_tag = cx
            .meta()
            .and_then(|meta| meta.get("example.com/tag"))
            .cloned();
        ToolOutput::json(&serde_json::json!({
            "protocolVersion": cx.protocol_version().map(|v| v.to_string()),
            "client": cx.client_info().map(|c| c.name),
            "elicitation": cx.client_capabilities().is_some_and(|c| c.elicitation.is_some()),
            "header": header,
            "metaTag": meta_tag,
        }))
    }

    async fn write_file(&self, args: WriteFileArgs, _: Context) -> ToolResult {
        Ok(format!("wrote {}", args.path).into())
    }
}

fn serde_json_value() -> serde_json::Value {
    serde_json::json!({"server": "toolmetadata-test-server", "tools": TOOL_ENTRIES.len()})
}

/// Adds one to a counter when dropped before [`CountOnDrop::disarm`]: the
/// server dropped the handler's future.
struct CountOnDrop(Option<Arc<AtomicUsize>>);

impl CountOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CountOnDrop {
    fn drop(&mut self) {
        if let Some(counter) = self.0.take() {
            counter.fetch_add(1, Ordering::SeqCst);
        }
    }
}
