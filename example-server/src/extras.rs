//! What example-server serves beside its tools: every text file under its
//! roots as a resource (`file:///{+path}`), and a prompt that reviews the
//! changes in a directory, with the directory completed.

use toolmetadata::ToolError;
use toolmetadata::server::ServerBuilder;
use toolmetadata::server::rmcp::model::{
    GetPromptResult, Prompt, PromptArgument, PromptMessage, ResourceContents, ResourceTemplate,
    Role,
};

use crate::confinement::Confinement;
use crate::files;
use crate::limits::Limits;
use crate::offload::Offload;
use crate::scope::Scope;

/// Directory suggestions a completion sends at most (MCP's own limit).
const MAX_SUGGESTIONS: usize = 100;

pub(crate) fn add(
    builder: ServerBuilder,
    scope: &Scope,
    limits: Limits,
    offload: &Offload,
) -> ServerBuilder {
    let (read_scope, read_offload) = (scope.clone(), offload.clone());
    let (complete_scope, complete_offload) = (scope.clone(), offload.clone());
    builder
        .resource_template(
            ResourceTemplate::new("file:///{+path}", "files")
                .with_title("Files under the roots")
                .with_mime_type("text/plain"),
            move |uri, vars, cx| {
                let (scope, offload) = (read_scope.clone(), read_offload.clone());
                async move {
                    let roots = scope.roots(&cx).await?;
                    let path = format!("/{}", vars.get("path").map_or("", String::as_str));
                    let (body, mime) = offload
                        .run(move || files::read_resource(&roots, limits, &path))
                        .await?;
                    let contents = match body {
                        files::ResourceBody::Text(text) => {
                            let mut contents = ResourceContents::text(text, uri);
                            if let ResourceContents::TextResourceContents { mime_type, .. } =
                                &mut contents
                            {
                                *mime_type = Some(mime.to_owned());
                            }
                            contents
                        }
                        files::ResourceBody::Blob(bytes) => {
                            use base64::Engine as _;
                            let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
                            ResourceContents::blob(data, uri).with_mime_type(mime)
                        }
                    };
                    Ok(vec![contents])
                }
            },
        )
        .prompt(
            Prompt::new(
                "review_changes",
                Some("Review the changes in a directory of the workspace"),
                Some(vec![
                    PromptArgument::new("path")
                        .with_description("The directory to review")
                        .with_required(true),
                ]),
            ),
            |args, _cx| async move {
                let path = args
                    .get("path")
                    .and_then(|v| v.as_str())
                    .ok_or_else(|| ToolError::new("`path` must be a string"))?
                    .to_owned();
                Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!(
                        "Review the changes in {path}: list it with directory_tree, read what changed \
                         with read_file, and summarize what changed, what could break, and what to test."
                    ),
                )]))
            },
        )
        .complete_prompt("review_changes", "path", move |typed, cx| {
            let (scope, offload) = (complete_scope.clone(), complete_offload.clone());
            async move {
                let Ok(roots) = scope.roots(&cx).await else {
                    return Vec::new();
                };
                offload
                    .run(move || Ok(directories(&roots, &typed)))
                    .await
                    .unwrap_or_default()
            }
        })
}

/// The directories directly under the first root whose names start with
/// `typed`, sorted, at most [`MAX_SUGGESTIONS`].
fn directories(roots: &Confinement, typed: &str) -> Vec<String> {
    let Some(root) = roots.dirs().into_iter().next() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&root) else {
        return Vec::new();
    };
    let mut found: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.starts_with(typed))
        .take(10 * MAX_SUGGESTIONS)
        .collect();
    found.sort();
    found.truncate(MAX_SUGGESTIONS);
    found
}
