//! Each skills request has its span, as every other request does. Alone in
//! its binary: the subscriber that watches is this thread's, and tests
//! running beside it would make the spans' interest theirs.

mod common;

use std::sync::{Arc, Mutex};

use rmcp::handler::server::skill_catalog::SkillCatalog;
use rmcp::model::{GetSkillRequestParams, ReadResourceDirectoryRequestParams};
use toolmetadata::server::Server;
use tracing_subscriber::layer::SubscriberExt;

/// The `mcp.method.name` of every span a subscriber saw.
#[derive(Clone, Default)]
struct Methods(Arc<Mutex<Vec<String>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Methods {
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        _: &tracing::span::Id,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        struct Method<'a>(&'a Methods);
        impl tracing::field::Visit for Method<'_> {
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                if field.name() == "mcp.method.name" {
                    self.0
                        .0
                        .lock()
                        .expect("not poisoned")
                        .push(value.to_owned());
                }
            }
            fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
        }
        attrs.record(&mut Method(self));
    }
}

#[tokio::test(flavor = "current_thread")]
async fn each_skills_request_has_its_span() {
    let methods = Methods::default();
    let _default =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(methods.clone()));
    let root =
        std::env::temp_dir().join(format!("toolmetadata-skill-spans-{}", std::process::id()));
    let skill = root.join("notes");
    std::fs::create_dir_all(skill.join("more")).expect("mkdir");
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: notes\ndescription: Take notes\n---\n",
    )
    .expect("write");
    std::fs::write(skill.join("more/tips.md"), "Short lines.\n").expect("write");
    let catalog = SkillCatalog::from_dir(&root).expect("catalog");
    let server = Server::builder()
        .skills(Arc::new(catalog))
        .build()
        .expect("server");
    let client = common::connect(server, ()).await;
    client.list_skills(None).await.expect("skills/list");
    client
        .get_skill(GetSkillRequestParams::new("skill://notes/SKILL.md"))
        .await
        .expect("skills/get");
    client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new("skill://notes"))
        .await
        .expect("resources/directory/read");
    let _ = std::fs::remove_dir_all(&root);
    let seen = methods.0.lock().expect("not poisoned").clone();
    for method in ["skills/list", "skills/get", "resources/directory/read"] {
        assert!(seen.iter().any(|m| m == method), "{method} among {seen:?}");
    }
}
