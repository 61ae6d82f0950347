//! Every name the format accepts works in the generated code: tools,
//! parameters, output fields and enum values named like the generated code's
//! own locals and items, Rust keywords and prelude names are generated,
//! compiled under `#![deny(warnings)]` and called with real arguments.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use toolmetadata::metadata::names;
use toolmetadata_build::Builder;

/// The names under test.
const NAMES: &[&str] = &[
    // Locals, parameters and items of the generated code (emit.rs) and of the
    // runtime paths it calls.
    "args",
    "conversion",
    "slots",
    "decoder",
    "fields",
    "PARAMS",
    "TOOL",
    "from_arguments",
    "FromArguments",
    "handler",
    "name",
    "call",
    "cx",
    "T",
    "Tools",
    "TOOL_ENTRIES",
    "tool_set",
    "dispatch",
    "map",
    "value",
    "s",
    "f",
    "ALL",
    "as_str",
    "fmt",
    "from_str",
    "from_arg",
    "to_json",
    "to_structured",
    "put_field",
    "run",
    "run_structured",
    "required",
    "optional",
    "required_custom",
    "optional_custom",
    "finish",
    "unwrap_or",
    "unwrap_or_else",
    "Display",
    "FromStr",
    "FromArg",
    "ToJson",
    "Structured",
    "ArgProblem",
    "ArgErrors",
    "Map",
    "Params",
    "ParamSpec",
    "CallFuture",
    "Call",
    "ToolEntry",
    "ToolSet",
    "ToolResult",
    "Context",
    "Formatter",
    "Value",
    "toolmetadata",
    "core",
    "std",
    "serde_json",
    "a",
    "i64",
    "f64",
    "bool",
    "str",
    "usize",
    "vec",
    "env",
    "compile_error",
    "not_one_of",
    "enum_from_arg",
    "fail",
    "field_0",
    "Placeholder",
    "PLACEHOLDER",
    "Started",
    // Names of generated items of other tools.
    "Args",
    "Output",
    "ToolsArgs",
    "get_user_args",
    "GetUserOutput",
    "Choice",
    "Kind",
    // Strict, reserved and weak keywords of the 2024 edition.
    "as",
    "async",
    "await",
    "break",
    "const",
    "continue",
    "crate",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "Self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "gen",
    "macro",
    "override",
    "priv",
    "try",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "union",
    "macro_rules",
    "raw",
    "safe",
    "auto",
    "default",
    // The prelude, and the standard macros and attributes.
    "Option",
    "Some",
    "None",
    "Ok",
    "Err",
    "Result",
    "String",
    "Vec",
    "Box",
    "Send",
    "Sync",
    "Sized",
    "Unpin",
    "Copy",
    "Clone",
    "Default",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "drop",
    "ToString",
    "ToOwned",
    "Into",
    "From",
    "TryFrom",
    "TryInto",
    "Iterator",
    "IntoIterator",
    "Extend",
    "FromIterator",
    "Eq",
    "PartialEq",
    "Ord",
    "PartialOrd",
    "AsRef",
    "AsMut",
    "Debug",
    "Hash",
    "assert",
    "panic",
    "println",
    "format",
    "matches",
    "main",
    "test",
    "derive",
    "doc",
    "allow",
    "deny",
    "cfg",
];

/// The names split into sets in which no two tools share a Rust method or
/// type stem and no two values share a variant (`self` and `Self` are one
/// method), so that each set is one valid tool set.
fn partition() -> Vec<Vec<&'static str>> {
    let mut sets: Vec<(Vec<&str>, BTreeSet<String>)> = Vec::new();
    for &name in NAMES {
        let keys = [
            format!("m:{}", names::snake(name)),
            format!("t:{}", names::type_stem(name)),
            format!("v:{}", names::variant_name(name)),
        ];
        let slot = sets
            .iter()
            .position(|(_, taken)| keys.iter().all(|k| !taken.contains(k)));
        let (set, taken) = match slot {
            Some(i) => &mut sets[i],
            None => {
                sets.push((Vec::new(), BTreeSet::new()));
                sets.last_mut().expect("just pushed")
            }
        };
        set.push(name);
        taken.extend(keys);
    }
    sets.into_iter().map(|(set, _)| set).collect()
}

/// TOML for a string.
fn quoted(s: &str) -> String {
    format!("{s:?}")
}

/// Tool `name`: a required string parameter `name`, an enum parameter
/// `pick_one` whose one value is `name` (its default), and outputs `name` and
/// `out_kind` (an enum of `name`).
fn tool_file(name: &str) -> String {
    let q = quoted(name);
    format!(
        "description = \"The tool {name}\"\n\n\
         [[parameters]]\nname = {q}\ntype = \"string\"\nrequired = true\n\n\
         [[parameters]]\nname = \"pick_one\"\ntype = \"string\"\nenum = [{q}]\ndefault = {q}\n\n\
         [[output]]\nname = {q}\ntype = \"string\"\nrequired = true\n\n\
         [[output]]\nname = \"out_kind\"\ntype = \"string\"\nenum = [{q}]\nrequired = true\n"
    )
}

/// How the `i`th parameter of `all_names` is typed, so that required,
/// defaulted and optional fields are all named like everything else.
enum Shape {
    Required,
    Defaulted,
    Optional,
}

fn shape(i: usize) -> Shape {
    match i % 3 {
        0 => Shape::Required,
        1 => Shape::Defaulted,
        _ => Shape::Optional,
    }
}

/// Tool `all_names`: every name of the set as a parameter; `all_values`: one
/// enum parameter with every name as a value.
fn all_names_file(set: &[&str]) -> String {
    let mut out = String::from("description = \"Every name\"\n");
    for (i, name) in set.iter().enumerate() {
        let q = quoted(name);
        let rest = match shape(i) {
            Shape::Required => "type = \"string\"\nrequired = true",
            Shape::Defaulted => "type = \"int\"\ndefault = 7",
            Shape::Optional => "type = \"array:string\"",
        };
        write!(out, "\n[[parameters]]\nname = {q}\n{rest}\n").expect("write to String");
    }
    out
}

fn all_values_file(set: &[&str]) -> String {
    let values: Vec<String> = set.iter().map(|v| quoted(v)).collect();
    format!(
        "description = \"Every value\"\n\n[[parameters]]\nname = \"v\"\ntype = \"string\"\nrequired = true\nenum = [{}]\n",
        values.join(", ")
    )
}

/// The handler of set `k` and the calls `main` makes through its tool set.
fn harness(k: usize, set: &[&str]) -> (String, String) {
    let m = format!("set{k}");
    let mut methods = String::new();
    let mut calls = String::new();
    for name in set {
        let stem = names::type_stem(name);
        let method = names::method_name(name);
        let field = names::field_name(name);
        let variant = names::variant_name(name);
        write!(
            methods,
            "
    async fn {method}(&self, args: {m}::{stem}Args, _cx: ::toolmetadata::Context) -> ::toolmetadata::ToolResult<{m}::{stem}Output> {{
        assert_eq!(args.pick_one, {m}::{stem}PickOne::{variant});
        assert_eq!(args.pick_one.as_str(), {name:?});
        assert_eq!(args.pick_one.to_string().parse::<{m}::{stem}PickOne>().ok(), Some(args.pick_one));
        assert_eq!({m}::{stem}PickOne::ALL, [args.pick_one]);
        Ok({m}::{stem}Output {{ {field}: args.{field}, out_kind: {m}::{stem}OutputOutKind::{variant} }})
    }}"
        )
        .expect("write to String");
        write!(
            calls,
            "
    let out = structured(call(&set, {name:?}, ::serde_json::json!({{ {name:?}: \"hello\" }})));
    assert_eq!(out, ::serde_json::json!({{ {name:?}: \"hello\", \"out_kind\": {name:?} }}));
    let out = call(&set, {name:?}, ::serde_json::json!({{ \"pick_one\": \"nope\" }}));
    assert!(matches!(out, ::toolmetadata::CallOutcome::InvalidArguments(_)), \"{{out:?}}\");"
        )
        .expect("write to String");
    }
    let mut checks = String::new();
    let mut args = serde_json::Map::new();
    for (i, name) in set.iter().enumerate() {
        let field = names::field_name(name);
        let (value, check) = match shape(i) {
            Shape::Required => (serde_json::json!("s"), format!("args.{field} == \"s\"")),
            Shape::Defaulted => (serde_json::json!(42), format!("args.{field} == 42")),
            Shape::Optional => (
                serde_json::json!(["x"]),
                format!("args.{field}.as_deref() == Some(&[\"x\".to_owned()][..])"),
            ),
        };
        args.insert((*name).to_owned(), value);
        write!(checks, "\n        assert!({check}, {check:?});").expect("write to String");
    }
    let mut variants = String::new();
    for name in set {
        write!(
            variants,
            "\n    assert_eq!({name:?}.parse::<{m}::AllValuesV>().map({m}::AllValuesV::as_str).ok(), Some({name:?}));"
        )
        .expect("write to String");
    }
    let args = serde_json::Value::Object(args).to_string();
    let last = set.last().expect("sets are not empty");
    let handler = format!(
        "
struct H{k};

impl {m}::Tools for H{k} {{{methods}

    async fn all_names(&self, args: {m}::AllNamesArgs, _cx: ::toolmetadata::Context) -> ::toolmetadata::ToolResult {{{checks}
        Ok(\"every name\".into())
    }}

    async fn all_values(&self, args: {m}::AllValuesArgs, _cx: ::toolmetadata::Context) -> ::toolmetadata::ToolResult {{
        Ok(args.v.as_str().into())
    }}
}}
"
    );
    let main = format!(
        "
    let set = {m}::tool_set(H{k});
    assert_eq!(set.names().len(), {count});{calls}
    let out = call(&set, \"all_names\", ::serde_json::from_str({args:?}).unwrap());
    assert!(matches!(out, ::toolmetadata::CallOutcome::Output(_)), \"{{out:?}}\");
    let out = call(&set, \"all_values\", ::serde_json::json!({{ \"v\": {last:?} }}));
    match out {{
        ::toolmetadata::CallOutcome::Output(o) => assert_eq!(o.text_content(), {last:?}),
        other => panic!(\"{{other:?}}\"),
    }}{variants}
",
        count = set.len() + 2,
    );
    (handler, main)
}

const CALL: &str = "
/// Calls `name` and waits: every handler here is ready at once.
fn call<T>(set: &::toolmetadata::ToolSet<T>, name: &str, args: ::serde_json::Value) -> ::toolmetadata::CallOutcome {
    let args = args.as_object().cloned().unwrap();
    let mut future = set.call(name, args, ::toolmetadata::Context::new(name)).unwrap();
    let mut cx = ::std::task::Context::from_waker(::std::task::Waker::noop());
    match ::std::pin::Pin::new(&mut future).poll(&mut cx) {
        ::std::task::Poll::Ready(outcome) => outcome,
        ::std::task::Poll::Pending => panic!(\"{name} did not complete\"),
    }
}

fn structured(outcome: ::toolmetadata::CallOutcome) -> ::serde_json::Value {
    match outcome {
        ::toolmetadata::CallOutcome::Output(o) => o.structured_content().cloned().unwrap(),
        other => panic!(\"{other:?}\"),
    }
}
";

#[test]
fn every_name_builds_under_deny_warnings_and_decodes() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("names");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let sets = partition();
    let mut wrapper = String::from("#![deny(warnings)]\n\nuse std::future::Future as _;\n");
    let mut mains = String::new();
    for (k, set) in sets.iter().enumerate() {
        let dir = out.join(format!("set{k}"));
        std::fs::create_dir_all(&dir).unwrap();
        for name in set {
            std::fs::write(dir.join(format!("{name}.toml")), tool_file(name)).unwrap();
        }
        std::fs::write(dir.join("all_names.toml"), all_names_file(set)).unwrap();
        std::fs::write(dir.join("all_values.toml"), all_values_file(set)).unwrap();
        let source = Builder::new()
            .emit_cargo_directives(false)
            .strict_arguments(true)
            .dir(&dir)
            .generate()
            .unwrap_or_else(|e| panic!("set {k} {set:?}:\n{e}"));
        let generated = out.join(format!("set{k}.rs"));
        std::fs::write(&generated, source).unwrap();
        let (handler, main) = harness(k, set);
        write!(
            wrapper,
            "\nmod set{k} {{\n    include!({:?});\n}}\n{handler}",
            generated.display().to_string()
        )
        .unwrap();
        mains.push_str(&main);
    }
    write!(wrapper, "{CALL}\nfn main() {{{mains}}}\n").unwrap();
    let main = out.join("main.rs");
    std::fs::write(&main, wrapper).unwrap();
    assert!(sets.len() >= 2, "`self` and `Self` need two sets");
    trybuild::TestCases::new().pass(&main);
}
