//! The `Tools` implementation: each tool's handler, with the server's options.

use toolmetadata::{Context, ToolError, ToolResult};

use crate::roots::Roots;
use crate::tools::*;
use crate::{command, files, search};

pub(crate) struct Workspace {
    pub(crate) roots: Roots,
    pub(crate) read_only: bool,
    pub(crate) allowed_commands: Vec<String>,
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
}

impl Tools for Workspace {
    async fn create_directory(&self, args: CreateDirectoryArgs, cx: Context) -> ToolResult {
        self.writable(cx.tool())?;
        files::create_directory(&self.roots, args)
    }

    async fn directory_tree(&self, args: DirectoryTreeArgs, _: Context) -> ToolResult {
        files::directory_tree(&self.roots, args)
    }

    async fn file_info(&self, args: FileInfoArgs, _: Context) -> ToolResult<FileInfoOutput> {
        files::file_info(&self.roots, args)
    }

    async fn find_files(&self, args: FindFilesArgs, _: Context) -> ToolResult<FindFilesOutput> {
        search::find_files(&self.roots, args)
    }

    async fn list_directory(
        &self,
        args: ListDirectoryArgs,
        _: Context,
    ) -> ToolResult<ListDirectoryOutput> {
        files::list_directory(&self.roots, args)
    }

    async fn move_path(&self, args: MovePathArgs, cx: Context) -> ToolResult {
        self.writable(cx.tool())?;
        files::move_path(&self.roots, args)
    }

    async fn read_file(&self, args: ReadFileArgs, _: Context) -> ToolResult {
        files::read_file(&self.roots, args)
    }

    async fn replace_in_file(
        &self,
        args: ReplaceInFileArgs,
        cx: Context,
    ) -> ToolResult<ReplaceInFileOutput> {
        self.writable(cx.tool())?;
        files::replace_in_file(&self.roots, args)
    }

    async fn run_command(&self, args: RunCommandArgs, cx: Context) -> ToolResult<RunCommandOutput> {
        self.writable(cx.tool())?;
        command::run_command(&self.roots, &self.allowed_commands, args).await
    }

    async fn search_files(
        &self,
        args: SearchFilesArgs,
        _: Context,
    ) -> ToolResult<SearchFilesOutput> {
        search::search_files(&self.roots, args)
    }

    async fn write_file(&self, args: WriteFileArgs, cx: Context) -> ToolResult {
        self.writable(cx.tool())?;
        files::write_file(&self.roots, args)
    }
}
