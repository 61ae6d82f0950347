//! Skills (SEP-2640) served from a directory through rmcp's client: the
//! extension declared with `directoryRead` beside the resources capability,
//! `skills/list` and `skills/get` with each file's digest and size,
//! `resources/read` of the files, `resources/directory/read`, each
//! `SKILL.md` in `resources/list` beside the server's own resources, what a
//! hostile tree holds (a symlink out, a hidden file) never served, and the
//! same through a `Mounted` handler.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::model::{
    CacheScope, ClientRequest, DIRECTORY_MIME_TYPE, ErrorCode, GetSkillRequestParams,
    ListSkillsRequest, ProtocolVersion, ReadResourceDirectoryRequestParams,
    ReadResourceRequestParams, ResourceContents, SKILLS_EXTENSION_ID, ServerConfig, SkillResources,
    sha256_digest,
};
use rmcp::service::{ClientLifecycleMode, RoleClient, RunningService, ServiceError};
use rmcp::{ServerHandler, handler::server::skill_catalog::SkillCatalog};
use toolmetadata::server::Server;

const SKILL_MD: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n# PDF processing\n\nSee references/FORMS.md.\n";
const FORMS_MD: &str = "# Forms\n\nFill the fields in order.\n";
const SKILL: &str = "skill://pdf-processing/SKILL.md";
const FORMS: &str = "skill://pdf-processing/references/FORMS.md";

/// A skills tree of its own for each test: one skill with a subdirectory
/// and a hidden file, and one with a symlink to a file outside the tree.
struct Tree(PathBuf);

impl Tree {
    fn new(name: &str) -> Tree {
        let root =
            std::env::temp_dir().join(format!("toolmetadata-skills-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let skill = root.join("pdf-processing");
        std::fs::create_dir_all(skill.join("references")).expect("mkdir");
        std::fs::write(skill.join("SKILL.md"), SKILL_MD).expect("write");
        std::fs::write(skill.join("references/FORMS.md"), FORMS_MD).expect("write");
        std::fs::write(skill.join(".env"), "TOKEN=secret").expect("write");
        let outside = root.with_extension("outside");
        std::fs::write(&outside, "outside the tree").expect("write");
        // A skill with a symlink out of the tree is not served at all.
        #[cfg(unix)]
        {
            let linked = root.join("linked");
            std::fs::create_dir_all(&linked).expect("mkdir");
            std::fs::write(
                linked.join("SKILL.md"),
                "---\nname: linked\ndescription: Links out\n---\n",
            )
            .expect("write");
            std::os::unix::fs::symlink(&outside, linked.join("escape.md")).expect("symlink");
        }
        Tree(root)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        let _ = std::fs::remove_file(self.0.with_extension("outside"));
    }
}

fn server(tree: &Tree) -> Server {
    let catalog = SkillCatalog::from_dir(tree.path()).expect("catalog");
    Server::builder()
        .resource("app://status", "status", "text/plain", "all good")
        .skills(Arc::new(catalog))
        .build()
        .expect("server")
}

async fn read_text(
    client: &RunningService<RoleClient, ()>,
    uri: &str,
) -> Result<String, ServiceError> {
    let read = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await?;
    match &read.contents[..] {
        [ResourceContents::TextResourceContents { text, .. }] => Ok(text.clone()),
        other => panic!("one text for {uri}, got {other:?}"),
    }
}

fn is_invalid_params(result: &Result<impl std::fmt::Debug, ServiceError>) -> bool {
    matches!(result, Err(ServiceError::McpError(e)) if e.code == ErrorCode::INVALID_PARAMS)
}

/// Everything a client sees of the skills, on the protocol `lifecycle`
/// starts.
async fn serves_the_skills(server: impl ServerHandler, lifecycle: ClientLifecycleMode) {
    let client = common::connect_with(server, (), lifecycle).await;
    let info = client.peer_info().expect("initialized");
    assert!(
        info.capabilities.resources.is_some(),
        "skills need resources"
    );
    let settings = &info.capabilities.extensions.as_ref().expect("extensions")[SKILLS_EXTENSION_ID];
    assert_eq!(settings.get("directoryRead"), Some(&true.into()));

    let listed = client.list_skills(None).await.expect("skills/list");
    assert_eq!(listed.next_cursor, None);
    let [skill] = &listed.skills[..] else {
        panic!("one skill, got {:?}", listed.skills);
    };
    assert_eq!(skill.uri, SKILL);
    assert_eq!(skill.frontmatter.name, "pdf-processing");
    assert_eq!(
        skill.frontmatter.description,
        "Extract, fill, and assemble PDF documents"
    );
    let SkillResources::Files(files) = &skill.resources else {
        panic!("a manifest of files");
    };
    let mut manifest: Vec<_> = files
        .iter()
        .map(|f| (f.uri.as_str(), f.digest.clone(), f.size))
        .collect();
    manifest.sort();
    // The hidden file is no file of the skill.
    assert_eq!(
        manifest,
        [
            (
                SKILL,
                sha256_digest(SKILL_MD.as_bytes()),
                SKILL_MD.len() as u64
            ),
            (
                FORMS,
                sha256_digest(FORMS_MD.as_bytes()),
                FORMS_MD.len() as u64
            ),
        ]
    );

    let got = client
        .get_skill(GetSkillRequestParams::new(SKILL))
        .await
        .expect("skills/get");
    assert_eq!(&got.skill, skill);
    let unknown = client
        .get_skill(GetSkillRequestParams::new("skill://nothing-here/SKILL.md"))
        .await;
    assert!(is_invalid_params(&unknown), "{unknown:?}");

    assert_eq!(read_text(&client, SKILL).await.expect("SKILL.md"), SKILL_MD);
    assert_eq!(read_text(&client, FORMS).await.expect("FORMS.md"), FORMS_MD);
    for hidden in [
        "skill://pdf-processing/.env",
        "skill://linked/SKILL.md",
        "skill://linked/escape.md",
    ] {
        let read = client
            .read_resource(ReadResourceRequestParams::new(hidden))
            .await;
        assert!(read.is_err(), "{hidden} is not served: {read:?}");
    }
    // The server's own resources are still served beside the skills'.
    assert_eq!(
        read_text(&client, "app://status").await.expect("status"),
        "all good"
    );
    let resources = client.list_resources(None).await.expect("resources/list");
    let mut uris: Vec<_> = resources.resources.iter().map(|r| r.uri.as_str()).collect();
    uris.sort();
    assert_eq!(uris, ["app://status", SKILL]);

    let directory = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(
            "skill://pdf-processing",
        ))
        .await
        .expect("resources/directory/read");
    let subdirectory = directory
        .resources
        .iter()
        .find(|r| r.mime_type.as_deref() == Some(DIRECTORY_MIME_TYPE))
        .expect("references/ is a directory");
    let inside = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(
            subdirectory.uri.clone(),
        ))
        .await
        .expect("the subdirectory");
    let children: Vec<_> = inside.resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(children, [FORMS]);
    let not_a_directory = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(FORMS))
        .await;
    assert!(is_invalid_params(&not_a_directory), "{not_a_directory:?}");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_served_the_skills_of_a_directory() {
    let tree = Tree::new("session");
    serves_the_skills(server(&tree), ClientLifecycleMode::Initialize).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_is_served_the_skills_with_cache_hints() {
    let tree = Tree::new("stateless");
    let modern = || ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    serves_the_skills(server(&tree), modern()).await;
    let client = common::connect_with(server(&tree), (), modern()).await;
    // The server's list hints (five minutes, public by default), not
    // rmcp's fallback (0, private).
    let hints = Some((300_000, CacheScope::Public));
    let listed = client.list_skills(None).await.expect("skills/list");
    assert_eq!(listed.ttl_ms.zip(listed.cache_scope), hints);
    let got = client
        .get_skill(GetSkillRequestParams::new(SKILL))
        .await
        .expect("skills/get");
    assert_eq!(got.ttl_ms.zip(got.cache_scope), hints);
}

/// A handler of one's own that serves no skills.
#[derive(Clone)]
struct Mine;

impl ServerHandler for Mine {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_server_serves_the_tools_skills() {
    let tree = Tree::new("mounted");
    serves_the_skills(server(&tree).mount(Mine), ClientLifecycleMode::Initialize).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_skills_declares_none() {
    let server = Server::builder()
        .resource("app://status", "status", "text/plain", "all good")
        .build()
        .expect("server");
    let client = common::connect(server, ()).await;
    let info = client.peer_info().expect("initialized");
    let declared = info
        .capabilities
        .extensions
        .as_ref()
        .is_some_and(|e| e.contains_key(SKILLS_EXTENSION_ID));
    assert!(!declared);
    // Asked anyway (rmcp's `list_skills` would not send it).
    let listed = client
        .send_request(ClientRequest::ListSkillsRequest(ListSkillsRequest {
            method: Default::default(),
            params: None,
            extensions: Default::default(),
        }))
        .await;
    assert!(
        matches!(&listed, Err(ServiceError::McpError(e)) if e.code == ErrorCode::METHOD_NOT_FOUND),
        "{listed:?}"
    );
}

/// A handler of one's own with a resource of its own and a skills
/// declaration of its own, without `directoryRead`.
#[derive(Clone)]
struct Notes;

impl ServerHandler for Notes {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = rmcp::model::ServerCapabilities::builder()
            .enable_resources()
            .enable_skills()
            .build();
        capabilities.resources = Some(Default::default());
        ServerConfig::new(capabilities)
    }

    async fn list_resources(
        &self,
        _: Option<rmcp::model::PaginatedRequestParams>,
        _: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, rmcp::ErrorData> {
        Ok(rmcp::model::ListResourcesResult::with_all_items(vec![
            rmcp::model::Resource::new("mine://notes", "notes"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, rmcp::ErrorData> {
        if request.uri != "mine://notes" {
            return Err(rmcp::ErrorData::resource_not_found("not mine", None));
        }
        Ok(
            rmcp::model::ReadResourceResult::new(vec![ResourceContents::text(
                "my notes",
                request.uri,
            )])
            .into(),
        )
    }
}

/// Skills alone mounted beside a handler's own resources: both are listed
/// and read, and the skills served are declared as served (with
/// `directoryRead`), over the handler's own declaration.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_alone_are_served_beside_a_mounted_handlers_resources() {
    let tree = Tree::new("beside");
    let skills_only = Server::builder()
        .skills(Arc::new(
            SkillCatalog::from_dir(tree.path()).expect("catalog"),
        ))
        .build()
        .expect("server");
    let client = common::connect(skills_only.mount(Notes), ()).await;
    let info = client.peer_info().expect("initialized");
    let settings = &info.capabilities.extensions.as_ref().expect("extensions")[SKILLS_EXTENSION_ID];
    assert_eq!(settings.get("directoryRead"), Some(&true.into()));

    let resources = client.list_resources(None).await.expect("resources/list");
    let uris: Vec<_> = resources.resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["mine://notes", SKILL]);
    assert_eq!(
        read_text(&client, "mine://notes").await.expect("notes"),
        "my notes"
    );
    assert_eq!(read_text(&client, SKILL).await.expect("SKILL.md"), SKILL_MD);
    client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(
            "skill://pdf-processing",
        ))
        .await
        .expect("resources/directory/read");
    let listed = client.list_skills(None).await.expect("skills/list");
    assert_eq!(listed.skills.len(), 1);
}

/// A tree of many skills is listed a page at a time (50 skills each), every
/// skill once, the cursor as given; a cursor the server did not give is
/// refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_skills_are_listed_a_page_at_a_time() {
    let tree = Tree::new("many");
    for n in 0..120 {
        let name = format!("skill-{n:03}");
        let dir = tree.path().join(&name);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: Skill {n}\n---\n"),
        )
        .expect("write");
    }
    let client = common::connect(server(&tree), ()).await;
    let mut listed = Vec::new();
    let mut pages = Vec::new();
    let mut cursor = None;
    loop {
        let params =
            cursor.map(|c| rmcp::model::PaginatedRequestParams::default().with_cursor(Some(c)));
        let page = client.list_skills(params).await.expect("skills/list");
        pages.push(page.skills.len());
        listed.extend(page.skills.into_iter().map(|s| s.uri));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    // The 120 and the tree's own pdf-processing.
    assert_eq!(pages, [50, 50, 21]);
    let unique: std::collections::BTreeSet<_> = listed.iter().collect();
    assert_eq!(unique.len(), 121, "each skill once");
    for bogus in ["x", "999", "-1"] {
        let params = rmcp::model::PaginatedRequestParams::default().with_cursor(Some(bogus.into()));
        let refused = client.list_skills(Some(params)).await;
        assert!(is_invalid_params(&refused), "{bogus}: {refused:?}");
    }
}
