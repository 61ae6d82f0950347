//! The builder's skills (feature `skills`).

use std::sync::Arc;

use super::ServerBuilder;
use crate::server::skills::SkillCatalog;

impl ServerBuilder {
    /// Serves the skills of `catalog` (SEP-2640, the
    /// `io.modelcontextprotocol/skills` extension, declared with
    /// `directoryRead`): `skills/list`, `skills/get`,
    /// `resources/directory/read`, each skill's `SKILL.md` in
    /// `resources/list`, and every file of a skill in `resources/read`. A
    /// static resource of the same URI wins over a skill's file, which wins
    /// over a template.
    ///
    /// The catalog is rmcp's: a snapshot of a directory tree in memory (reads
    /// never touch the disk), each folder holding a `SKILL.md` a skill. It
    /// opens nothing through a symbolic link, and skips a whole skill that
    /// holds one, a hidden entry, and a skill of over 512 files or 16 MiB; a
    /// hard link inside the tree is an ordinary file, whatever it shares its
    /// contents with. `skills/list` answers 50 skills a page (a skill's
    /// manifest lists up to 512 files); `resources/list` lists every
    /// `SKILL.md`.
    ///
    /// Keep the `Arc` to
    /// [`reload`](crate::server::rmcp::handler::server::skill_catalog::SkillCatalog::reload)
    /// it, outside async workers (`spawn_blocking`: it reads the tree with
    /// blocking I/O); the server serves what it holds at each request, each
    /// instance behind a balancer its own. No notification tells clients: on
    /// 2026-07-28 they keep lists for the server's
    /// [`list_ttl`](Self::list_ttl). A skill's files cannot be subscribed to.
    /// A second call replaces the first catalog. Feature `skills`.
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use toolmetadata::server::Server;
    /// use toolmetadata::server::rmcp::handler::server::skill_catalog::SkillCatalog;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let skills = Arc::new(SkillCatalog::from_dir("skills")?);
    /// let server = Server::builder().skills(skills).build()?;
    /// # let _ = server;
    /// # Ok(())
    /// # }
    /// ```
    pub fn skills(mut self, catalog: Arc<SkillCatalog>) -> Self {
        self.skills = Some(catalog);
        self
    }
}
