//! The catalog: lists and their tags, groups, tools enabled and disabled.

use super::{Scope, list_tag};
use crate::metadata::Load as _;
use crate::server::Server;
use crate::server::policy::access::Caller;
use crate::{Context, ToolMetadata};

async fn nothing(_: crate::server::Arguments, _: Context) -> Result<String, crate::ToolError> {
    Ok(String::new())
}

/// A server of `tools` (name, metadata in TOML).
fn server(tools: &[(&str, &str)]) -> Server {
    let mut builder = Server::builder();
    for (name, text) in tools {
        let metadata = ToolMetadata::from_toml_str(name, text).expect("metadata");
        builder = builder.tool(metadata, nothing);
    }
    builder.build().expect("server")
}

/// The tag of every list is the one its tools have, whether it was
/// computed for the request or once for the whole catalog: with and
/// without discovery, with and without `show_all`, for callers who see
/// every tool, some or none of the scoped ones. Scopes need `http` (a
/// caller's token holds them): without it the tools have none.
#[test]
fn every_listing_is_tagged_as_its_tools() {
    let scoped = |text: &str, scope: &str| {
        if cfg!(feature = "http") {
            format!("{text}scopes = [\"{scope}\"]\n")
        } else {
            text.to_owned()
        }
    };
    let write = scoped("description = \"Write\"\n", "notes:write");
    let run = scoped("description = \"Run\"\ndiscoverable = true\n", "exec");
    let plain = [
        ("read_notes", "description = \"Read\"\n"),
        ("write_notes", write.as_str()),
    ];
    let discovering = [
        ("read_notes", "description = \"Read\"\n"),
        ("run_command", run.as_str()),
        ("write_notes", write.as_str()),
    ];
    #[cfg(feature = "http")]
    let principals = [
        crate::server::auth::Principal::new(None, Vec::<String>::new()),
        crate::server::auth::Principal::new(None, ["notes:write"]),
        crate::server::auth::Principal::new(None, ["notes:write", "exec"]),
        crate::server::auth::Principal::unrestricted(None),
    ];
    #[allow(unused_mut)]
    let mut callers = vec![Caller::anonymous()];
    #[cfg(feature = "http")]
    callers.extend(principals.iter().map(Caller::with_principal));
    let mut seen = Vec::new();
    for tools in [&plain[..], &discovering[..]] {
        let catalog = &server(tools).inner.catalog;
        for show_all in [false, true] {
            for caller in &callers {
                let (listed, tag) = catalog.listing(show_all, caller, Scope::Whole);
                assert_eq!(tag, list_tag(&listed), "show_all {show_all}");
                assert_eq!(listed, catalog.listed(show_all, caller, Scope::Whole));
                let names: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
                seen.push((names, tag));
            }
        }
    }
    // The same tools, the same tag; other tools, another.
    for (names, tag) in &seen {
        for (other_names, other_tag) in &seen {
            assert_eq!(
                names == other_names,
                tag == other_tag,
                "{names:?} {other_names:?}"
            );
        }
    }
    assert!(
        seen.iter().any(|(names, _)| names.len() == 4),
        "discovery's view"
    );
}

/// A server built for some groups serves their tools, each in the
/// chosen groups only; no group, or one no tool is in, is refused.
#[test]
fn a_server_of_some_groups_serves_those_only() {
    let built = |groups: &[&str]| {
        let mut builder = Server::builder();
        for (name, text) in [
            (
                "delete_note",
                "description = \"Delete\"\ntoolGroups = [\"admin\"]\n",
            ),
            (
                "read_note",
                "description = \"Read\"\ntoolGroups = [\"read\", \"admin\"]\n",
            ),
            ("stats", "description = \"Counts\"\n"),
        ] {
            let metadata = ToolMetadata::from_toml_str(name, text).expect("metadata");
            builder = builder.tool(metadata, nothing);
        }
        builder.groups(groups.iter().copied()).build()
    };
    let server = built(&["read"]).expect("server");
    let catalog = &server.inner.catalog;
    let names: Vec<String> = catalog
        .listed(true, &Caller::anonymous(), Scope::Whole)
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["read_note"]);
    assert!(catalog.group("read").is_some());
    assert_eq!(
        catalog.group("admin"),
        None,
        "a group not chosen is served nowhere"
    );
    let refused = built(&["write"]).expect_err("no tool is in it").to_string();
    assert!(
        refused.contains("`write`") && refused.contains("admin, read"),
        "{refused}"
    );
    assert!(built(&[]).is_err());
}

/// A group lists its tools, tagged as its own list; finds, lists and
/// searches none of another's; the whole catalog has them all.
#[test]
fn a_group_sees_its_tools_only() {
    let server = server(&[
        (
            "delete_note",
            "description = \"Delete a note\"\ntoolGroups = [\"admin\"]\n",
        ),
        (
            "find_notes",
            "description = \"Find notes\"\ndiscoverable = true\ntoolGroups = [\"read\"]\n",
        ),
        (
            "read_note",
            "description = \"Read a note\"\ntoolGroups = [\"read\", \"admin\"]\n",
        ),
        ("stats", "description = \"Counts\"\n"),
    ]);
    let catalog = &server.inner.catalog;
    let caller = Caller::anonymous();
    let names = |scope| -> Vec<String> {
        catalog
            .listed(true, &caller, scope)
            .iter()
            .map(|t| t.name.to_string())
            .collect()
    };
    let admin = catalog.group("admin").expect("admin");
    let read = catalog.group("read").expect("read");
    assert_eq!(catalog.group("write"), None);
    assert_eq!(names(admin), ["delete_note", "read_note"]);
    assert_eq!(names(read), ["find_notes", "read_note"]);
    assert_eq!(names(Scope::Whole).len(), 4);
    // Without show_all, discovery is the group's own: admin has no
    // discoverable tool, so no meta-tools.
    let plain = |scope| -> Vec<String> {
        catalog
            .listed(false, &caller, scope)
            .iter()
            .map(|t| t.name.to_string())
            .collect()
    };
    assert_eq!(plain(admin), ["delete_note", "read_note"]);
    assert_eq!(plain(read), ["execute_tool", "read_note", "tool_search"]);
    assert!(catalog.find("delete_note", read).is_none());
    assert!(catalog.find("tool_search", admin).is_none());
    assert!(catalog.find("delete_note", admin).is_some());
    let tags: Vec<String> = [admin, read, Scope::Whole]
        .map(|scope| {
            let (listed, tag) = catalog.listing(false, &caller, scope);
            assert_eq!(tag, list_tag(&listed));
            tag
        })
        .to_vec();
    assert!(tags[0] != tags[1] && tags[1] != tags[2] && tags[0] != tags[2]);
    let found = catalog.search(
        &serde_json::json!({"query": "note"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        &caller,
        read,
    );
    let text = serde_json::to_string(&found).unwrap_or_default();
    assert!(
        text.contains("find_notes") && !text.contains("delete_note"),
        "{text}"
    );
}

/// A disabled tool is not found, listed, scoped or searched, in the whole
/// catalog or its group; each change retags the lists as their tools, and
/// states naming no tool change nothing.
#[test]
#[cfg(feature = "subscriptions")]
fn a_disabled_tool_is_nowhere_and_the_tags_follow() {
    let mut builder = Server::builder();
    for (name, text) in [
        (
            "find_notes",
            "description = \"Find notes\"\ntoolGroups = [\"read\"]\n",
        ),
        (
            "read_note",
            "description = \"Read a note\"\ntoolGroups = [\"read\"]\n",
        ),
    ] {
        let metadata = ToolMetadata::from_toml_str(name, text).expect("metadata");
        builder = builder.tool(metadata, nothing);
    }
    let server = builder
        .changing_tools(["find_notes"])
        .build()
        .expect("server");
    let catalog = &server.inner.catalog;
    let caller = Caller::anonymous();
    let read = catalog.group("read").expect("group");
    let look = |scope| {
        let (listed, tag) = catalog.listing(false, &caller, scope);
        assert_eq!(tag, list_tag(&listed));
        let names: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
        (names, tag)
    };
    let (before, before_tag) = look(Scope::Whole);
    assert_eq!(before, ["read_note"]);
    assert_eq!(look(read).0, ["read_note"]);
    assert!(catalog.find("find_notes", Scope::Whole).is_none());
    assert!(catalog.find("find_notes", read).is_none());
    #[cfg(feature = "http")]
    assert!(catalog.scopes("find_notes", Scope::Whole).is_none());

    let states = |pairs: &[(&str, bool)]| {
        pairs
            .iter()
            .map(|(n, e)| ((*n).to_owned(), *e))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    assert!(!catalog.apply(&states(&[("nothing", true)])));
    assert!(catalog.apply(&states(&[("find_notes", true)])));
    let (after, after_tag) = look(Scope::Whole);
    assert_eq!(after, ["find_notes", "read_note"]);
    assert_ne!(before_tag, after_tag);
    assert_eq!(look(read).0, ["find_notes", "read_note"]);
    assert!(catalog.find("find_notes", read).is_some());
    assert!(
        !catalog.apply(&states(&[("find_notes", true)])),
        "no change"
    );

    assert!(catalog.apply(&states(&[("read_note", false)])));
    assert_eq!(look(Scope::Whole).0, Vec::<String>::new());
    let args = serde_json::json!({"query": "note"});
    let found = catalog.search(args.as_object().expect("object"), &caller, Scope::Whole);
    assert_eq!(
        serde_json::to_value(&found.content).expect("json")[0]["text"],
        "[]",
        "search finds no disabled tool"
    );
}
