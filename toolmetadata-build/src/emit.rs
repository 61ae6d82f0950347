//! The model → Rust tokens. Every path is fully qualified, so tools and
//! parameters named `Option`, `String` or `clone` cannot shadow anything, and
//! handler methods are called through the trait bound (`T::method`).
//!
//! The generated code binds no local a parameter name could shadow: the
//! decoder is `decoder`, the struct `value`, a required field of a user type
//! is taken into a local named by its position (`field_0`), and parameter
//! names appear only as the struct's fields.

use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::{format_ident, quote};
use toolmetadata_load::metadata::{
    Literal, Number, ParamType, ScalarType, TaskSupport, Unsupported,
};

use crate::model::{Enum, Field, FieldType, Module, Tool};

mod extras;
mod tokens;
use extras::{failure_enum, manifests};
use tokens::{allow, doc, ident};

/// The items of the set as a whole: the handler trait, the `tools/list`
/// entries, `tool_set` and `dispatch` (each tool's own are [`tool_items`]).
pub(crate) fn set_items(module: &Module) -> TokenStream {
    let mut out = TokenStream::new();
    let trait_methods = module.tools.iter().map(trait_method);
    let entries = module.tools.iter().map(entry);
    let arms = module.tools.iter().map(dispatch_arm);
    let allow = allow();
    let manifests = module.manifests.as_ref().map(manifests);
    let conversion = if module.strict {
        quote!(::toolmetadata::codegen::Conversion::Strict)
    } else {
        quote!(::toolmetadata::codegen::Conversion::Lenient)
    };
    let body = if module.tools.is_empty() {
        quote! {
            let _ = (handler, name, call);
            ::core::option::Option::None
        }
    } else {
        quote! {
            ::core::option::Option::Some(match name {
                #(#arms)*
                _ => return ::core::option::Option::None,
            })
        }
    };
    out.extend(quote! {
        /// The handlers of this tool set: one method per tool, so that a tool added
        /// to the metadata is a compile error until it is handled.
        #allow
        pub trait Tools: ::core::marker::Send + ::core::marker::Sync + 'static {
            #(#trait_methods)*
        }

        /// Every tool of this set, sorted by name, with its `tools/list` entry
        /// rendered at build time.
        #allow
        pub static TOOL_ENTRIES: &[::toolmetadata::codegen::ToolEntry] = &[#(#entries),*];

        /// This tool set with `handler`, ready to be served.
        #allow
        pub fn tool_set<T: Tools>(handler: T) -> ::toolmetadata::codegen::ToolSet<T> {
            ::toolmetadata::codegen::tool_set(
                handler,
                TOOL_ENTRIES,
                dispatch::<T>,
                #conversion,
                ::core::env!("CARGO_PKG_NAME"),
                ::core::env!("CARGO_PKG_VERSION"),
            )
        }

        #manifests

        /// Decodes the arguments of a call of `name` and starts its handler;
        /// `None` when this set has no tool `name`.
        fn dispatch<'a, T: Tools>(
            handler: &'a T,
            name: &str,
            call: ::toolmetadata::codegen::Call,
        ) -> ::core::option::Option<::toolmetadata::codegen::Started<'a>> {
            #body
        }
    });
    out
}

/// One tool's items: its enums, argument struct, output struct and failures.
pub(crate) fn tool_items(tool: &Tool) -> TokenStream {
    let mut out = TokenStream::new();
    out.extend(tool.enums.iter().map(enum_items));
    out.extend(args_struct(tool));
    if let Some(name) = &tool.output_type {
        out.extend(output_struct(tool, name));
    }
    if !tool.failures.is_empty() {
        out.extend(failure_enum(tool));
    }
    out
}

fn rust_type(ty: &FieldType) -> TokenStream {
    match ty {
        FieldType::Scalar(ScalarType::String) => quote!(::std::string::String),
        FieldType::Scalar(ScalarType::Integer) => quote!(i64),
        FieldType::Scalar(ScalarType::Number) => quote!(f64),
        FieldType::Scalar(ScalarType::Boolean) => quote!(bool),
        FieldType::Enum(name) => {
            let name = ident(name);
            quote!(#name)
        }
        FieldType::Vec(item) => {
            let item = rust_type(item);
            quote!(::std::vec::Vec<#item>)
        }
        FieldType::Custom(path) => path
            .parse::<TokenStream>()
            .unwrap_or_else(|_| quote!(::core::compile_error!("invalid custom type"))),
    }
}

fn field_type(field: &Field) -> TokenStream {
    let ty = rust_type(&field.ty);
    if field.is_option() {
        quote!(::core::option::Option<#ty>)
    } else {
        ty
    }
}

/// A field's doc: its description, or else what the metadata says of it (its
/// type and whether it is required); then its default.
fn field_doc(field: &Field) -> TokenStream {
    let p = &field.param;
    let mut text = if p.description.trim().is_empty() {
        let need = if p.required { "required" } else { "optional" };
        format!("`{}`: {}, {need}", p.name, p.ty)
    } else {
        p.description.clone()
    };
    if let Some(default) = &p.default {
        text.push_str(&format!(" (default: `{}`)", default.to_json()));
    }
    doc(&text)
}

fn struct_fields(fields: &[Field]) -> impl Iterator<Item = TokenStream> + '_ {
    fields.iter().map(|f| {
        let doc = field_doc(f);
        let ident = ident(&f.ident);
        let ty = field_type(f);
        quote!(#doc pub #ident: #ty,)
    })
}

fn args_struct(tool: &Tool) -> TokenStream {
    let name = ident(&tool.args_type);
    let tool_name = &tool.name;
    let struct_doc = doc(&format!(
        "Arguments of `{}`: {}",
        tool.name,
        if tool.description.is_empty() {
            "(no description)"
        } else {
            &tool.description
        }
    ));
    let fields = struct_fields(&tool.params);
    let count = Lit::usize_unsuffixed(tool.params.len());
    let specs = tool.params.iter().map(spec);
    // A required parameter of a user type has no stand-in value: it is taken
    // first into a local, and unwrapped last in the struct expression, once
    // every other parameter is taken (so every error is recorded).
    let is_custom_required = |f: &Field| f.param.required && matches!(f.ty, FieldType::Custom(_));
    let custom_required: Vec<(usize, &Field)> = tool
        .params
        .iter()
        .enumerate()
        .filter(|(_, f)| is_custom_required(f))
        .collect();
    let locals = custom_required.iter().map(|(i, _)| {
        let local = format_ident!("field_{i}");
        let index = Lit::usize_unsuffixed(*i);
        quote!(let #local = decoder.required_custom(#index);)
    });
    let inits = tool
        .params
        .iter()
        .enumerate()
        .filter(|(_, f)| !is_custom_required(f))
        .map(|(i, f)| {
            let ident = ident(&f.ident);
            let take = take(i, f);
            quote!(#ident: #take,)
        });
    let unwraps = custom_required.iter().map(|(i, f)| {
        let ident = ident(&f.ident);
        let local = format_ident!("field_{i}");
        quote! {
            #ident: match #local {
                ::core::option::Option::Some(#local) => #local,
                ::core::option::Option::None => return ::core::result::Result::Err(decoder.fail()),
            },
        }
    });
    let derives = if tool.params.is_empty() {
        quote!(#[derive(Debug, Clone, PartialEq, Default)])
    } else {
        quote!(#[derive(Debug, Clone, PartialEq)])
    };
    let allow = allow();
    // A tool without parameters only checks that no argument was given.
    let binding = if tool.params.is_empty() {
        quote!(let decoder)
    } else {
        quote!(let mut decoder)
    };
    // One struct expression: a required argument that is missing or bad has
    // a stand-in (its error recorded), and `finish` returns the errors
    // instead of the struct. Nothing but the taking is compiled per tool.
    let decode = quote! {
        #binding = PARAMS.decoder(Self::TOOL, args, conversion);
        #(#locals)*
        let value = Self {
            #(#inits)*
            #(#unwraps)*
        };
        decoder.finish(value)
    };
    quote! {
        #struct_doc
        #derives
        #allow
        pub struct #name {
            #(#fields)*
        }

        impl ::toolmetadata::codegen::FromArguments for #name {
            const TOOL: &'static str = #tool_name;

            fn from_arguments(
                args: ::toolmetadata::codegen::Map,
                conversion: ::toolmetadata::codegen::Conversion,
            ) -> ::core::result::Result<Self, ::toolmetadata::codegen::ArgErrors> {
                static PARAMS: ::toolmetadata::codegen::Params<#count> = ::toolmetadata::codegen::Params([#(#specs),*]);
                #decode
            }
        }
    }
}

fn spec(field: &Field) -> TokenStream {
    let p = &field.param;
    let c = &p.constraints;
    let name = &p.name;
    let constructor = match p.ty {
        ParamType::Scalar(s) => format_ident!("{}", scalar_name(s)),
        ParamType::Array(s) => format_ident!("{}_array", scalar_name(s)),
    };
    let mut calls = Vec::new();
    if p.required {
        calls.push(quote!(.required()));
    }
    if let Some(values) = &p.enum_values {
        calls.push(quote!(.one_of(&[#(#values),*])));
    }
    for (bound, value) in [("minimum", c.minimum), ("maximum", c.maximum)] {
        calls.extend(value.map(|n| match n {
            Number::Integer(i) => {
                let method = format_ident!("{bound}_integer");
                let i = Lit::i64_unsuffixed(i);
                quote!(.#method(#i))
            }
            Number::Float(x) => {
                let method = format_ident!("{bound}_number");
                let x = Lit::f64_suffixed(x);
                quote!(.#method(#x))
            }
        }));
    }
    for (method, value) in [
        ("min_length", c.min_length),
        ("max_length", c.max_length),
        ("min_items", c.min_items),
        ("max_items", c.max_items),
    ] {
        if let Some(v) = value {
            let method = format_ident!("{method}");
            let v = Lit::u64_unsuffixed(v);
            calls.push(quote!(.#method(#v)));
        }
    }
    if let Some(pattern) = &c.pattern {
        calls.push(quote!(.pattern(#pattern)));
    }
    quote!(::toolmetadata::codegen::ParamSpec::#constructor(#name) #(#calls)*)
}

fn scalar_name(s: ScalarType) -> &'static str {
    match s {
        ScalarType::String => "string",
        ScalarType::Integer => "integer",
        ScalarType::Number => "number",
        ScalarType::Boolean => "boolean",
    }
}

/// Taking parameter `index` from the decoder, its default filled in. The
/// value's type is inferred from the struct field it ends in. A required
/// argument is never absent once decoded, so its default is never used.
fn take(index: usize, field: &Field) -> TokenStream {
    let index = Lit::usize_unsuffixed(index);
    let custom = matches!(field.ty, FieldType::Custom(_));
    let method = match (field.param.required, custom) {
        (true, false) => quote!(required),
        (true, true) => quote!(required_custom),
        (false, false) => quote!(optional),
        (false, true) => quote!(optional_custom),
    };
    let call = quote!(decoder.#method(#index));
    match &field.param.default {
        Some(default) if !field.param.required => {
            let value = literal(default, &field.ty);
            // Strings and vectors allocate, so only when needed; other defaults
            // are constants.
            if matches!(default, Literal::String(_) | Literal::Array(_))
                && !matches!(field.ty, FieldType::Enum(_))
            {
                quote!(#call.unwrap_or_else(|| #value))
            } else {
                quote!(#call.unwrap_or(#value))
            }
        }
        _ => call,
    }
}

/// A default as an expression of the field's type.
fn literal(value: &Literal, ty: &FieldType) -> TokenStream {
    match (value, ty) {
        (Literal::String(s), FieldType::Enum(name)) => {
            let name = ident(name);
            let variant = ident(&toolmetadata_load::metadata::names::variant_name(s));
            quote!(#name::#variant)
        }
        (Literal::String(s), _) => quote!(::std::string::String::from(#s)),
        (Literal::Integer(i), _) => {
            let i = Lit::i64_suffixed(*i);
            quote!(#i)
        }
        (Literal::Number(x), _) => {
            let x = Lit::f64_suffixed(*x);
            quote!(#x)
        }
        (Literal::Boolean(b), _) => quote!(#b),
        (Literal::Array(items), FieldType::Vec(item)) => {
            let items = items.iter().map(|v| literal(v, item));
            quote!(::std::vec![#(#items),*])
        }
        (Literal::Array(items), other) => {
            let items = items.iter().map(|v| literal(v, other));
            quote!(::std::vec![#(#items),*])
        }
    }
}

fn output_struct(tool: &Tool, name: &str) -> TokenStream {
    let name = ident(name);
    let struct_doc = doc(&format!(
        "The structured result of `{}` (its `outputSchema`).",
        tool.name
    ));
    let fields = struct_fields(&tool.outputs);
    let allow = allow();
    let puts = tool.outputs.iter().map(|f| {
        let ident = ident(&f.ident);
        let key = &f.param.name;
        quote!(::toolmetadata::codegen::put_field(&mut map, #key, &self.#ident);)
    });
    quote! {
        #struct_doc
        #[derive(Debug, Clone, PartialEq)]
        #allow
        pub struct #name {
            #(#fields)*
        }

        impl ::toolmetadata::codegen::Structured for #name {
            fn to_structured(&self) -> ::toolmetadata::codegen::serde_json::Value {
                let mut map = ::toolmetadata::codegen::serde_json::Map::new();
                #(#puts)*
                ::toolmetadata::codegen::serde_json::Value::Object(map)
            }
        }
    }
}

fn enum_items(e: &Enum) -> TokenStream {
    let name = ident(&e.name);
    let enum_doc = doc(&e.doc);
    let count = Lit::usize_unsuffixed(e.variants.len());
    let values: Vec<&String> = e.variants.iter().map(|(v, _)| v).collect();
    let variants: Vec<Ident> = e.variants.iter().map(|(_, v)| ident(v)).collect();
    let variant_docs = values.iter().map(|v| doc(&format!("`{v}`")));
    let allow = allow();
    // What stands in for a required argument that failed (never handled).
    let placeholder = variants.first().map(|first| {
        quote! {
            impl ::toolmetadata::codegen::Placeholder for #name {
                const PLACEHOLDER: Self = Self::#first;
            }
        }
    });
    quote! {
        #enum_doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #allow
        pub enum #name {
            #(#variant_docs #variants,)*
        }

        #allow
        impl #name {
            /// Every value, in the order of the metadata.
            pub const ALL: [Self; #count] = [#(Self::#variants),*];

            /// The value as the schema writes it.
            pub fn as_str(self) -> &'static str {
                match self {
                    #(Self::#variants => #values,)*
                }
            }
        }

        impl ::core::fmt::Display for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::core::str::FromStr for #name {
            type Err = ::toolmetadata::codegen::ArgProblem;

            // Not `Self::Err`: a value `Err` makes that path name the variant too.
            fn from_str(s: &str) -> ::core::result::Result<Self, ::toolmetadata::codegen::ArgProblem> {
                match s {
                    #(#values => ::core::result::Result::Ok(Self::#variants),)*
                    _ => ::core::result::Result::Err(::toolmetadata::codegen::not_one_of(s, &[#(#values),*])),
                }
            }
        }

        impl ::toolmetadata::codegen::FromArg for #name {
            fn from_arg(
                value: &::toolmetadata::codegen::serde_json::Value,
            ) -> ::core::result::Result<Self, ::toolmetadata::codegen::ArgProblem> {
                ::toolmetadata::codegen::enum_from_arg(value)
            }
        }

        impl ::toolmetadata::codegen::ToJson for #name {
            fn to_json(&self) -> ::toolmetadata::codegen::serde_json::Value {
                ::toolmetadata::codegen::serde_json::Value::from(self.as_str())
            }
        }

        #placeholder
    }
}

fn trait_method(tool: &Tool) -> TokenStream {
    let method = ident(&tool.method);
    let args = ident(&tool.args_type);
    let method_doc = doc(&format!(
        "`{}`: {}",
        tool.name,
        if tool.description.is_empty() {
            "(no description)"
        } else {
            &tool.description
        }
    ));
    let output = match &tool.output_type {
        Some(out) => {
            let out = ident(out);
            quote!(::toolmetadata::codegen::ToolResult<#out>)
        }
        None => quote!(::toolmetadata::codegen::ToolResult),
    };
    quote! {
        #method_doc
        fn #method(
            &self,
            args: #args,
            cx: ::toolmetadata::codegen::Context,
        ) -> impl ::core::future::Future<Output = #output> + ::core::marker::Send;
    }
}

fn entry(tool: &Tool) -> TokenStream {
    let name = &tool.name;
    let json = raw_string(&tool.entry_json);
    let keywords = &tool.keywords;
    let keywords = (!keywords.is_empty()).then(|| quote!(.keywords(&[#(#keywords),*])));
    let discoverable = tool.discoverable.then(|| quote!(.discoverable()));
    // The server decides per call whether to run a task; the JSON says it
    // too, but a flag saves parsing it on every call.
    let task = match tool.task {
        TaskSupport::Forbidden => None,
        TaskSupport::Optional => {
            Some(quote!(.task(::toolmetadata::codegen::TaskSupport::Optional)))
        }
        TaskSupport::Required => {
            Some(quote!(.task(::toolmetadata::codegen::TaskSupport::Required)))
        }
    };

    let confirm = tool.confirm.as_ref().map(|c| {
        let message = &c.message;
        let unsupported = match c.unsupported {
            Unsupported::Proceed => quote!(Proceed),
            Unsupported::Refuse => quote!(Refuse),
        };
        quote!(.confirm(#message, ::toolmetadata::codegen::Unsupported::#unsupported))
    });
    let scopes = &tool.scopes;
    let scopes = (!scopes.is_empty()).then(|| quote!(.scopes(&[#(#scopes),*])));
    let version = tool.version.as_ref().map(|v| quote!(.version(#v)));
    let groups = &tool.groups;
    let groups = (!groups.is_empty()).then(|| quote!(.groups(&[#(#groups),*])));
    let millis = |d: std::time::Duration| {
        let ms = u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        quote!(::core::time::Duration::from_millis(#ms))
    };
    let timeout = tool.limits.timeout.map(|t| {
        let t = millis(t);
        quote!(.timeout(#t))
    });
    let concurrency = tool.limits.concurrency.map(|n| quote!(.concurrency(#n)));
    let rate = tool.limits.rate.map(|r| {
        let (calls, per) = (r.calls, millis(r.per));
        quote!(.rate(#calls, #per))
    });
    let bound = (!tool.bound.is_empty()).then(|| {
        let entries = tool
            .bound
            .iter()
            .map(|(param, source, required)| match source {
                toolmetadata_load::metadata::Source::Claim(key) => {
                    quote!(::toolmetadata::codegen::BoundEntry::claim(#param, #key, #required))
                }
                toolmetadata_load::metadata::Source::Header(key) => {
                    quote!(::toolmetadata::codegen::BoundEntry::header(#param, #key, #required))
                }
            });
        quote!(.bound(&[#(#entries),*]))
    });
    quote!(::toolmetadata::codegen::ToolEntry::new(#name, #json) #keywords #discoverable #task #confirm #scopes #version #groups #timeout #concurrency #rate #bound)
}

/// A raw string literal (`r#"…"#`), so the JSON reads as JSON in the file.
fn raw_string(text: &str) -> Lit {
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    format!("r{hashes}\"{text}\"{hashes}")
        .parse()
        .unwrap_or_else(|_| Lit::string(text))
}

fn dispatch_arm(tool: &Tool) -> TokenStream {
    let name = &tool.name;
    let method = ident(&tool.method);
    // `T::method` resolves through the only trait bound of `T`, so a tool
    // called `clone` or `drop` is still this trait's method.
    if let Some(template) = &tool.output_text {
        return quote! {
            #name => ::toolmetadata::codegen::run_with_text(handler, T::#method, call, #template),
        };
    }
    let run = if tool.output_type.is_some() {
        quote!(run_structured)
    } else {
        quote!(run)
    };
    quote! {
        #name => ::toolmetadata::codegen::#run(handler, T::#method, call),
    }
}
