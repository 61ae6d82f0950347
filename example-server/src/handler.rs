//! The `Tools` implementation: each tool's handler, with the server's options.

use toolmetadata::ask::{NotConfirmed, Question, visible};
use toolmetadata::metadata::Unsupported;
use toolmetadata::{Context, ToolError, ToolResult};

use crate::limits::Limits;
use crate::offload::Offload;
use crate::scope::{Scope, Source};
use crate::tools::*;
use crate::{atomic, command, edit, files, listing, search};

/// Most bytes of a diff shown in `edit_file`'s question.
const QUESTION_DIFF_BYTES: usize = 4000;

/// Most characters of one value (a path, a text) shown in a question; a
/// longer one is cut in the middle, its end kept.
const QUESTION_VALUE_CHARS: usize = 200;

pub(crate) struct Workspace {
    /// The `--root` directories, and each call's own (the client's roots).
    pub(crate) scope: Scope,
    pub(crate) read_only: bool,
    pub(crate) allowed_commands: command::Allowed,
    pub(crate) limits: Limits,
    pub(crate) offload: Offload,
    /// Refuse to replace a file unconfirmed when the client cannot ask.
    pub(crate) require_confirmation: bool,
    /// Where the file tools tell of the files they change.
    pub(crate) changes: crate::changes::Changes,
}

/// Runs a file tool's handler on the blocking pool with the call's roots
/// (see `scope`) and the limits.
macro_rules! offloaded {
    ($self:ident, $cx:ident, $handler:path, $args:ident) => {{
        let roots = $self.scope.roots(&$cx).await?;
        let limits = $self.limits;
        $self
            .offload
            .run(move || $handler(&roots, limits, $args))
            .await
    }};
    ($self:ident, $cx:ident, $handler:path, $args:ident, no_limits) => {{
        let roots = $self.scope.roots(&$cx).await?;
        $self.offload.run(move || $handler(&roots, $args)).await
    }};
}

impl Workspace {
    /// Write tools are not listed in read-only mode; this refuses them anyway,
    /// should a client call one by name.
    fn writable(&self, tool: &str) -> Result<(), ToolError> {
        if self.read_only {
            Err(ToolError::new(format!(
                "`{tool}` is not available: the server is read-only"
            )))
        } else {
            Ok(())
        }
    }

    /// Asks `question`; an error saying `path` was not `done` unless the
    /// person confirmed (or could not be asked and the server proceeds).
    async fn confirmed(
        &self,
        cx: &Context,
        question: Question,
        path: &str,
        done: &str,
    ) -> Result<(), ToolError> {
        match cx.confirm(question, self.unasked()).await {
            Ok(()) => Ok(()),
            Err(NotConfirmed::CannotAsk) => Err(ToolError::new(format!(
                "`{}` needs the user's confirmation, and this client cannot ask for it: \
                 {path} was not {done}",
                cx.tool()
            ))),
            Err(e) => Err(ToolError::new(format!("{path} was not {done}: {e}"))),
        }
    }

    /// What a change goes on with when the client cannot ask the person.
    fn unasked(&self) -> Unsupported {
        if self.require_confirmation {
            Unsupported::Refuse
        } else {
            Unsupported::Proceed
        }
    }
}

impl Tools for Workspace {
    async fn create_directory(&self, args: CreateDirectoryArgs, cx: Context) -> ToolResult {
        self.writable(cx.tool())?;
        offloaded!(self, cx, files::create_directory, args, no_limits)
    }

    async fn directory_tree(&self, args: DirectoryTreeArgs, cx: Context) -> ToolResult {
        offloaded!(self, cx, listing::directory_tree, args)
    }

    async fn edit_file(&self, args: EditFileArgs, cx: Context) -> ToolResult {
        self.writable(cx.tool())?;
        let (roots, limits) = (self.scope.roots(&cx).await?, self.limits);
        let edits = args.old_texts.len();
        let max_reply = limits.max_reply_bytes;
        // The diff is computed and shown first; nothing is written before
        // the answer (on 2026-07-28 the handler runs again with it). A dry
        // run, or edits that change nothing, end here without asking.
        let (preview, touched, uri, args) = self
            .offload
            .run(move || {
                let preview = edit::preview(&roots, limits, &args)?;
                let touched = files::as_touched(&roots, &args.path, true)?;
                let uri = crate::changes::resource_uri(&roots, &args.path, true);
                Ok::<_, ToolError>((preview, touched, uri, args))
            })
            .await?;
        if args.dry_run || preview.diff.is_empty() {
            return Ok(
                edit::report(&args.path, edits, args.dry_run, &preview.diff, max_reply).into(),
            );
        }
        let shown = edit::cut(&preview.diff, QUESTION_DIFF_BYTES);
        let rest = preview.diff.len() - shown.len();
        let question = Question::new(format!(
            "Apply {edits} edit(s) to {}?\n{shown}{}",
            visible(&touched, QUESTION_VALUE_CHARS),
            if rest > 0 {
                format!("\n… and {rest} more bytes of diff")
            } else {
                String::new()
            }
        ));
        match cx.confirm(question, self.unasked()).await {
            Ok(()) => {}
            Err(NotConfirmed::Declined | NotConfirmed::Cancelled) => {
                return Err(ToolError::new(format!(
                    "{} was not edited: the user did not confirm the change",
                    args.path
                )));
            }
            Err(e) => {
                return Err(ToolError::new(format!("{} was not edited: {e}", args.path)));
            }
        }
        let roots = self.scope.roots(&cx).await?;
        let shown_diff = preview.diff;
        let (applied, args) = self
            .offload
            .run(move || {
                edit::apply_to_file(&roots, limits, &args, Some(&shown_diff)).map(|p| (p, args))
            })
            .await?;
        self.changes.changed(uri);
        Ok(edit::report(&args.path, edits, false, &applied.diff, max_reply).into())
    }

    async fn file_info(&self, args: FileInfoArgs, cx: Context) -> ToolResult<FileInfoOutput> {
        offloaded!(self, cx, files::file_info, args, no_limits)
    }

    async fn find_files(&self, args: FindFilesArgs, cx: Context) -> ToolResult<FindFilesOutput> {
        offloaded!(self, cx, search::find_files, args)
    }

    async fn list_allowed_directories(
        &self,
        _: ListAllowedDirectoriesArgs,
        cx: Context,
    ) -> ToolResult<ListAllowedDirectoriesOutput> {
        let (roots, source) = self.scope.resolve(&cx).await?;
        if roots.is_empty() {
            return Err(ToolError::new(crate::confinement::NO_ROOTS));
        }
        Ok(ListAllowedDirectoriesOutput {
            directories: roots
                .dirs()
                .iter()
                .map(|d| d.display().to_string())
                .collect(),
            source: match source {
                Source::Client => ListAllowedDirectoriesOutputSource::ClientRoots,
                Source::CommandLine => ListAllowedDirectoriesOutputSource::CommandLine,
            },
        })
    }

    async fn list_directory(
        &self,
        args: ListDirectoryArgs,
        cx: Context,
    ) -> ToolResult<ListDirectoryOutput> {
        offloaded!(self, cx, listing::list_directory, args)
    }

    async fn move_path(&self, args: MovePathArgs, cx: Context) -> ToolResult {
        self.writable(cx.tool())?;
        // Asked with both paths as they will be touched, and whether an
        // existing destination goes: what the person approves is what runs.
        // The roots asked about are the roots moved in.
        let roots = self.scope.roots(&cx).await?;
        let (source, destination, asked) =
            (args.source.clone(), args.destination.clone(), roots.clone());
        let (from, to, uris) = self
            .offload
            .run(move || {
                Ok::<_, ToolError>((
                    files::as_touched(&asked, &source, false)?,
                    files::as_touched(&asked, &destination, false)?,
                    [
                        crate::changes::resource_uri(&asked, &source, false),
                        crate::changes::resource_uri(&asked, &destination, false),
                    ],
                ))
            })
            .await?;
        let question = Question::new(format!(
            "Move {} to {}? Overwrite an existing file: {}",
            visible(&from, QUESTION_VALUE_CHARS),
            visible(&to, QUESTION_VALUE_CHARS),
            args.overwrite
        ));
        self.confirmed(&cx, question, &args.source, "moved").await?;
        let moved = self
            .offload
            .run(move || files::move_path(&roots, args))
            .await?;
        for uri in uris {
            self.changes.changed(uri);
        }
        Ok(moved)
    }

    async fn list_directory_with_sizes(
        &self,
        args: ListDirectoryWithSizesArgs,
        cx: Context,
    ) -> ToolResult<ListDirectoryWithSizesOutput> {
        offloaded!(self, cx, listing::list_directory_with_sizes, args)
    }

    async fn read_media_file(&self, args: ReadMediaFileArgs, cx: Context) -> ToolResult {
        offloaded!(self, cx, files::read_media_file, args)
    }

    async fn read_multiple_files(&self, args: ReadMultipleFilesArgs, cx: Context) -> ToolResult {
        offloaded!(self, cx, files::read_multiple_files, args)
    }

    async fn read_file(&self, args: ReadFileArgs, cx: Context) -> ToolResult {
        offloaded!(self, cx, files::read_file, args)
    }

    async fn replace_in_file(
        &self,
        args: ReplaceInFileArgs,
        cx: Context,
    ) -> ToolResult<ReplaceInFileOutput> {
        self.writable(cx.tool())?;
        let roots = self.scope.roots(&cx).await?;
        let (path, asked) = (args.path.clone(), roots.clone());
        let (touched, uri) = self
            .offload
            .run(move || {
                Ok::<_, ToolError>((
                    files::as_touched(&asked, &path, true)?,
                    crate::changes::resource_uri(&asked, &path, true),
                ))
            })
            .await?;
        let question = Question::new(format!(
            "Replace {} with {} in {}?",
            visible(&args.old_text, QUESTION_VALUE_CHARS),
            visible(&args.new_text, QUESTION_VALUE_CHARS),
            visible(&touched, QUESTION_VALUE_CHARS)
        ));
        self.confirmed(&cx, question, &args.path, "changed").await?;
        let limits = self.limits;
        let replaced = self
            .offload
            .run(move || files::replace_in_file(&roots, limits, args))
            .await?;
        self.changes.changed(uri);
        Ok(replaced)
    }

    async fn run_command(&self, args: RunCommandArgs, cx: Context) -> ToolResult<RunCommandOutput> {
        self.writable(cx.tool())?;
        self.allowed_commands.check(&args.program, &args.args)?;
        let roots = self.scope.roots(&cx).await?;
        let cwd_arg = args.cwd.clone();
        let cwd = self
            .offload
            .run(move || command::open_cwd(&roots, &cwd_arg))
            .await?;
        command::run_command(cwd, &self.allowed_commands, args).await
    }

    async fn search_files(
        &self,
        args: SearchFilesArgs,
        cx: Context,
    ) -> ToolResult<SearchFilesOutput> {
        offloaded!(self, cx, search::search_files, args)
    }

    async fn write_file(&self, args: WriteFileArgs, cx: Context) -> ToolResult {
        self.writable(cx.tool())?;
        // Replacing a file is asked first; creating one is not. On
        // 2026-07-28 the handler runs again with the answer, so nothing is
        // written before this point.
        let path = args.path.clone();
        // The roots asked about are the roots written in.
        let roots = self.scope.roots(&cx).await?;
        let asked = roots.clone();
        let (replaces, touched, uri) = self
            .offload
            .run(move || {
                Ok::<_, ToolError>((
                    files::is_existing_file(&asked, &path)?,
                    files::as_touched(&asked, &path, true)?,
                    crate::changes::resource_uri(&asked, &path, true),
                ))
            })
            .await?;
        if replaces {
            let question = Question::new(format!(
                "Replace the existing file {}?",
                visible(&touched, QUESTION_VALUE_CHARS)
            ));
            match cx.confirm(question, self.unasked()).await {
                Ok(()) => {}
                Err(NotConfirmed::Declined | NotConfirmed::Cancelled) => {
                    return Err(ToolError::new(format!(
                        "{} was not written: the user did not confirm replacing it",
                        args.path
                    )));
                }
                Err(e) => {
                    return Err(ToolError::new(format!(
                        "{} was not written: {e}",
                        args.path
                    )));
                }
            }
        }
        // A file that was not there when looked at is created only if the
        // name is still free: nobody was asked about replacing another.
        let target = if replaces {
            atomic::Target::Either
        } else {
            atomic::Target::New
        };
        let written = self
            .offload
            .run(move || files::write_file(&roots, args, target))
            .await?;
        self.changes.changed(uri);
        Ok(written)
    }
}
