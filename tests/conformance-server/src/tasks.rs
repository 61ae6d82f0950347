//! The tasks extension's fixtures (SEP-2663 scenarios `tasks-*`): a
//! sync-only tool, and task tools that wait, fail as a tool, crash, or ask
//! the person from inside the task or before it.

use std::time::Duration;

use toolmetadata::ask::{Answer, Answers, Field, Question};
use toolmetadata::{Context, ToolError, ToolResult};

use crate::tools::*;

/// `greet`: never a task.
pub(crate) fn greet(a: GreetArgs) -> ToolResult {
    Ok(format!("Hello, {}!", a.name).into())
}

/// `slow_compute`: waits `seconds` (bounded to ten minutes), unless the
/// task is cancelled first, which drops it.
pub(crate) async fn slow_compute(a: SlowComputeArgs, cx: Context) -> ToolResult {
    let seconds = a.seconds.clamp(0.0, 600.0);
    let label = a.label.as_deref().unwrap_or("compute");
    if seconds > 0.0 {
        cx.progress(0.0, Some(seconds), Some("computing")).await;
        tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    }
    Ok(format!("{label}: done after {seconds} s").into())
}

/// `failing_job`: a tool error after about a second.
pub(crate) async fn failing_job() -> ToolResult {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("failing_job failed, as it always does"))
}

/// `protocol_error_job`: a handler that crashes, which the server reports
/// as a failed task rather than a tool's error.
pub(crate) async fn protocol_error_job() -> ToolResult {
    tokio::task::yield_now().await;
    panic!("protocol_error_job crashes on purpose")
}

/// `test_tool_with_task`: asks the person's name before its task starts
/// (the server is built with `ask_before_task` for it), then works a
/// moment in the task and greets them by the name gathered.
pub(crate) async fn test_tool_with_task(cx: Context) -> ToolResult {
    let question = Question::new("What is your name?")
        .key("user_name")
        .field(Field::string("name").description("Your name"));
    let answers = confirmed(&cx, question).await?;
    let name = answers.get::<String>("name").unwrap_or_default();
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(format!("Hello, {name}, from the task").into())
}

/// The person's yes to `question`, or the tool's error that says why not.
async fn confirmed(cx: &Context, question: Question) -> Result<Answers, ToolError> {
    match cx.ask(question).await {
        Ok(Answer::Accept(answers)) => Ok(answers),
        Ok(Answer::Decline | Answer::Cancel) => Err(ToolError::new("the person did not confirm")),
        Err(e) => Err(ToolError::new(format!("could not ask: {e}"))),
    }
}

/// `confirm_delete`: asks once, from inside its task, then "deletes".
pub(crate) async fn confirm_delete(a: ConfirmDeleteArgs, cx: Context) -> ToolResult {
    let question = Question::new(format!("Delete {}?", a.filename))
        .field(Field::boolean("confirm").description("Yes, delete it"));
    let answers = confirmed(&cx, question).await?;
    if answers.get::<bool>("confirm") == Ok(false) {
        return Ok(format!("kept {}", a.filename).into());
    }
    Ok(format!("deleted {}", a.filename).into())
}

/// `multi_input`: two questions at once, each waiting on its own key.
pub(crate) async fn multi_input(cx: Context) -> ToolResult {
    let ask = |n: u8| {
        Question::new(format!("Question {n} of 2: your name?"))
            .key(format!("question-{n}"))
            .field(Field::string("name"))
            .field(Field::boolean("confirm"))
    };
    let (first, second) = tokio::join!(confirmed(&cx, ask(1)), confirmed(&cx, ask(2)));
    let name = |answers: Answers| answers.get::<String>("name").unwrap_or_default();
    Ok(format!("answered: {} and {}", name(first?), name(second?)).into())
}
