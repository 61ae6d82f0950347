//! The model → Rust tokens. Every path is fully qualified, so tools and
//! parameters named `Option`, `String` or `clone` cannot shadow anything, and
//! trait methods are called as `<T as Tools>::method`.

use proc_macro2::{Ident, Literal as Lit, Span, TokenStream};
use quote::{format_ident, quote};
use toolmetadata::metadata::{Literal, Number, ParamType, ScalarType};

use crate::model::{Enum, Field, FieldType, Module, Tool};

pub(crate) fn module(module: &Module) -> TokenStream {
    // Extending with owned streams moves their tokens; interpolating them in
    // `quote!` would copy every token of every tool once more.
    let mut out = TokenStream::new();
    out.extend(module.tools.iter().map(tool_items));
    let trait_methods = module.tools.iter().map(trait_method);
    let entries = module.tools.iter().map(entry);
    let arms = module.tools.iter().map(dispatch_arm);
    let allow = allow();
    let conversion = if module.strict {
        quote!(::toolmetadata::args::Conversion::Strict)
    } else {
        quote!(::toolmetadata::args::Conversion::Lenient)
    };
    let unused = module
        .tools
        .is_empty()
        .then(|| quote!(let _ = (tools, args, cx, conversion);));
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
        pub static TOOLS: &[::toolmetadata::dispatch::ToolEntry] = &[#(#entries),*];

        /// This tool set with `handler`, ready to be served.
        #allow
        pub fn tool_set<T: Tools>(handler: T) -> ::toolmetadata::dispatch::Handled<T> {
            ::toolmetadata::dispatch::Handled::new(
                handler,
                TOOLS,
                dispatch::<T>,
                ::core::env!("CARGO_PKG_NAME"),
                ::core::env!("CARGO_PKG_VERSION"),
            )
        }

        /// Decodes the arguments of a call of `name` and calls its handler;
        /// `None` when this set has no tool `name`.
        #allow
        pub fn dispatch<'a, T: Tools>(
            tools: &'a T,
            name: &str,
            args: ::toolmetadata::args::Map,
            cx: ::toolmetadata::Context,
        ) -> ::core::option::Option<::toolmetadata::dispatch::Call<'a>> {
            let conversion = #conversion;
            #unused
            match name {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        }
    });
    out
}

/// On every generated item: in a binary crate, generated items the program
/// does not use (a tool's argument it ignores, `tool_set` when it calls
/// `dispatch` itself) are not the user's dead code to fix.
fn allow() -> TokenStream {
    quote!(#[allow(dead_code, unreachable_pub)])
}

fn ident(text: &str) -> Ident {
    match text.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(text, Span::call_site()),
    }
}

/// Text for a `#[doc]`: one line, and nothing rustdoc would read as a link, an
/// HTML tag or the start of a code block (which `cargo test --doc` would run).
fn doc(text: &str) -> TokenStream {
    let mut line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for (from, to) in [
        ("\\", "\\\\"),
        ("[", "\\["),
        ("]", "\\]"),
        ("<", "&lt;"),
        (">", "&gt;"),
    ] {
        line = line.replace(from, to);
    }
    if line.starts_with("```") || line.starts_with("~~~") || line.starts_with('#') {
        line.insert(0, '\\');
    }
    let line = format!(" {line}");
    quote!(#[doc = #line])
}

fn tool_items(tool: &Tool) -> TokenStream {
    let mut out = TokenStream::new();
    out.extend(tool.enums.iter().map(enum_items));
    out.extend(args_struct(tool));
    if let Some(name) = &tool.output_type {
        out.extend(output_struct(tool, name));
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

fn field_doc(field: &Field) -> TokenStream {
    let p = &field.param;
    let mut text = if p.description.trim().is_empty() {
        format!("`{}`", p.name)
    } else {
        p.description.clone()
    };
    if let Some(default) = &p.default {
        text.push_str(&format!(" (default: `{}`)", default.to_json()));
    }
    doc(&text)
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
    let fields = tool.params.iter().map(|f| {
        let doc = field_doc(f);
        let ident = ident(&f.ident);
        let ty = field_type(f);
        quote!(#doc pub #ident: #ty,)
    });
    let count = Lit::usize_unsuffixed(tool.params.len());
    let specs = tool.params.iter().map(spec);
    let decodes = tool
        .params
        .iter()
        .enumerate()
        .map(|(i, f)| decode_field(i, f));
    let idents: Vec<Ident> = tool.params.iter().map(|f| ident(&f.ident)).collect();
    let required: Vec<&Ident> = tool
        .params
        .iter()
        .zip(&idents)
        .filter(|(f, _)| !f.is_option() && f.param.default.is_none())
        .map(|(_, i)| i)
        .collect();
    let build = quote!(::core::result::Result::Ok(Self { #(#idents),* }));
    let allow = allow();
    let body = if required.is_empty() {
        quote! {
            if decoder.is_ok() {
                #build
            } else {
                ::core::result::Result::Err(decoder.into_errors())
            }
        }
    } else {
        quote! {
            match (#(#required,)*) {
                (#(::core::option::Option::Some(#required),)*) if decoder.is_ok() => #build,
                _ => ::core::result::Result::Err(decoder.into_errors()),
            }
        }
    };
    let derives = if tool.params.is_empty() {
        quote!(#[derive(Debug, Clone, PartialEq, Default)])
    } else {
        quote!(#[derive(Debug, Clone, PartialEq)])
    };
    let allow_unused_mut = tool.params.is_empty().then(|| quote!(#[allow(unused_mut)]));
    // `[const { None }; 0]` trips clippy's `zero_repeat_side_effects`.
    let slots = if tool.params.is_empty() {
        quote!([])
    } else {
        quote!([const { ::core::option::Option::None }; #count])
    };
    quote! {
        #struct_doc
        #derives
        #allow
        pub struct #name {
            #(#fields)*
        }

        impl ::toolmetadata::args::FromArguments for #name {
            const TOOL: &'static str = #tool_name;

            fn from_arguments(
                args: ::toolmetadata::args::Map,
                conversion: ::toolmetadata::args::Conversion,
            ) -> ::core::result::Result<Self, ::toolmetadata::args::ArgErrors> {
                static PARAMS: [::toolmetadata::args::ParamSpec; #count] = [#(#specs),*];
                let mut slots = #slots;
                #allow_unused_mut
                let mut decoder = ::toolmetadata::args::Decoder::new(Self::TOOL, args, &PARAMS, &mut slots, conversion);
                #(#decodes)*
                #body
            }
        }
    }
}

fn param_type(ty: ParamType) -> TokenStream {
    let scalar = |s: ScalarType| match s {
        ScalarType::String => quote!(::toolmetadata::metadata::ScalarType::String),
        ScalarType::Integer => quote!(::toolmetadata::metadata::ScalarType::Integer),
        ScalarType::Number => quote!(::toolmetadata::metadata::ScalarType::Number),
        ScalarType::Boolean => quote!(::toolmetadata::metadata::ScalarType::Boolean),
    };
    match ty {
        ParamType::Scalar(s) => {
            let s = scalar(s);
            quote!(::toolmetadata::metadata::ParamType::Scalar(#s))
        }
        ParamType::Array(s) => {
            let s = scalar(s);
            quote!(::toolmetadata::metadata::ParamType::Array(#s))
        }
    }
}

fn number(n: Number) -> TokenStream {
    match n {
        Number::Integer(i) => {
            let i = Lit::i64_suffixed(i);
            quote!(::toolmetadata::metadata::Number::Integer(#i))
        }
        Number::Float(x) => {
            let x = Lit::f64_suffixed(x);
            quote!(::toolmetadata::metadata::Number::Float(#x))
        }
    }
}

fn spec(field: &Field) -> TokenStream {
    let p = &field.param;
    let c = &p.constraints;
    let name = &p.name;
    let ty = param_type(p.ty);
    let mut calls = Vec::new();
    if p.required {
        calls.push(quote!(.required()));
    }
    if let Some(values) = &p.enum_values {
        calls.push(quote!(.one_of(&[#(#values),*])));
    }
    if let Some(n) = c.minimum {
        let n = number(n);
        calls.push(quote!(.minimum(#n)));
    }
    if let Some(n) = c.maximum {
        let n = number(n);
        calls.push(quote!(.maximum(#n)));
    }
    for (method, value) in [
        ("min_length", c.min_length),
        ("max_length", c.max_length),
        ("min_items", c.min_items),
        ("max_items", c.max_items),
    ] {
        if let Some(v) = value {
            let method = format_ident!("{method}");
            let v = Lit::u64_suffixed(v);
            calls.push(quote!(.#method(#v)));
        }
    }
    if let Some(pattern) = &c.pattern {
        calls.push(quote!(.pattern(#pattern)));
    }
    quote!(::toolmetadata::args::ParamSpec::new(#name, #ty) #(#calls)*)
}

fn decode_field(index: usize, field: &Field) -> TokenStream {
    let index = Lit::usize_unsuffixed(index);
    let ident = ident(&field.ident);
    let ty = rust_type(&field.ty);
    let custom = matches!(field.ty, FieldType::Custom(_));
    let method = match (field.param.required, custom) {
        (true, false) => quote!(required),
        (true, true) => quote!(required_custom),
        (false, false) => quote!(optional),
        (false, true) => quote!(optional_custom),
    };
    let call = quote!(decoder.#method::<#ty>(#index));
    match &field.param.default {
        Some(default) => {
            let value = literal(default, &field.ty);
            // Strings and vectors allocate, so only when needed; other defaults
            // are constants.
            if matches!(default, Literal::String(_) | Literal::Array(_))
                && !matches!(field.ty, FieldType::Enum(_))
            {
                quote!(let #ident = #call.unwrap_or_else(|| #value);)
            } else {
                quote!(let #ident = #call.unwrap_or(#value);)
            }
        }
        None => quote!(let #ident = #call;),
    }
}

/// A default as an expression of the field's type.
fn literal(value: &Literal, ty: &FieldType) -> TokenStream {
    match (value, ty) {
        (Literal::String(s), FieldType::Enum(name)) => {
            let name = ident(name);
            let variant = ident(&toolmetadata::metadata::names::variant_name(s));
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
    let fields = tool.outputs.iter().map(|f| {
        let doc = field_doc(f);
        let ident = ident(&f.ident);
        let ty = field_type(f);
        quote!(#doc pub #ident: #ty,)
    });
    let allow = allow();
    let puts = tool.outputs.iter().map(|f| {
        let ident = ident(&f.ident);
        let key = &f.param.name;
        quote!(::toolmetadata::put_field(&mut map, #key, &self.#ident);)
    });
    quote! {
        #struct_doc
        #[derive(Debug, Clone, PartialEq)]
        #allow
        pub struct #name {
            #(#fields)*
        }

        impl ::toolmetadata::Structured for #name {
            fn to_structured(&self) -> ::toolmetadata::serde_json::Value {
                let mut map = ::toolmetadata::serde_json::Map::new();
                #(#puts)*
                ::toolmetadata::serde_json::Value::Object(map)
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
            type Err = ::toolmetadata::args::ArgProblem;

            fn from_str(s: &str) -> ::core::result::Result<Self, Self::Err> {
                <Self as ::toolmetadata::args::FromArg>::from_arg(
                    &::toolmetadata::serde_json::Value::from(s),
                )
            }
        }

        impl ::toolmetadata::args::FromArg for #name {
            fn from_arg(
                value: &::toolmetadata::serde_json::Value,
            ) -> ::core::result::Result<Self, ::toolmetadata::args::ArgProblem> {
                let index = ::toolmetadata::args::enum_index(value, &[#(#values),*])?;
                Self::ALL.get(index).copied().ok_or_else(|| {
                    ::toolmetadata::args::ArgProblem::expected("a value of the enum", value)
                })
            }
        }

        impl ::toolmetadata::IntoJson for #name {
            fn to_json(&self) -> ::toolmetadata::serde_json::Value {
                ::toolmetadata::serde_json::Value::from(self.as_str())
            }
        }
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
            quote!(::toolmetadata::ToolResult<#out>)
        }
        None => quote!(::toolmetadata::ToolResult),
    };
    quote! {
        #method_doc
        fn #method(
            &self,
            args: #args,
            cx: ::toolmetadata::Context,
        ) -> impl ::core::future::Future<Output = #output> + ::core::marker::Send;
    }
}

fn entry(tool: &Tool) -> TokenStream {
    let name = &tool.name;
    let json = raw_string(&tool.entry_json);
    let discoverable = tool.discoverable;
    let keywords = &tool.keywords;
    quote! {
        ::toolmetadata::dispatch::ToolEntry {
            name: #name,
            entry_json: #json,
            discoverable: #discoverable,
            keywords: &[#(#keywords),*],
        }
    }
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
    let args = ident(&tool.args_type);
    let handler = quote!(<T as Tools>::#method(tools, a, cx));
    // The handler's future is boxed here, where its type is known, so that
    // everything after it is shared by all tools.
    let future = if tool.output_type.is_some() {
        quote!(::toolmetadata::dispatch::structured(#handler))
    } else {
        quote!(::std::boxed::Box::pin(#handler))
    };
    quote! {
        #name => ::core::option::Option::Some(::toolmetadata::dispatch::call(
            args,
            conversion,
            move |a: #args| #future,
        )),
    }
}
