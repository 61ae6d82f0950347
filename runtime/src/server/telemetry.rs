//! A span per request, named and attributed as the OpenTelemetry semantic
//! conventions for MCP say (`mcp.method.name`, `gen_ai.tool.name`,
//! `error.type`…), and with the `otel` feature the trace context a client
//! sends in `_meta` continued and `mcp.server.operation.duration` recorded.
//!
//! The spans are `tracing` spans of target [`SPAN_TARGET`] at INFO: with no
//! subscriber that wants them they cost a check of a cached interest, and a
//! `tracing-opentelemetry` layer (`telemetry::Otlp` or the application's
//! own) turns them into OpenTelemetry spans.

use rmcp::ErrorData;
use rmcp::model::CallToolResult;
use rmcp::service::{RequestContext, RoleServer};
use toolmetadata_core::seam::shorten;

/// The `tracing` target of the server's request spans, for filters.
pub const SPAN_TARGET: &str = "toolmetadata::telemetry";

/// `error.type` of a `tools/call` answered with `isError: true`.
const TOOL_ERROR: &str = "tool_error";

/// One request being served: its span, and when it began.
pub(super) struct Operation {
    span: tracing::Span,
    /// Its access log line, when that is wanted.
    access: Option<super::access_log::Access>,
    #[cfg(feature = "otel")]
    metric: metrics::Attributes,
    #[cfg(feature = "otel")]
    started: std::time::Instant,
}

impl Operation {
    /// The span of `method` (`tools/call`) on `target` (the tool's or
    /// prompt's name), for the request of `context`.
    pub(super) fn start(
        method: &'static str,
        target: Target<'_>,
        context: &RequestContext<RoleServer>,
    ) -> Operation {
        let span = tracing::info_span!(
            target: SPAN_TARGET,
            "mcp",
            "otel.name" = tracing::field::Empty,
            "otel.kind" = "server",
            "otel.status_code" = tracing::field::Empty,
            "otel.status_description" = tracing::field::Empty,
            "mcp.method.name" = method,
            "gen_ai.operation.name" = tracing::field::Empty,
            "gen_ai.tool.name" = tracing::field::Empty,
            "gen_ai.prompt.name" = tracing::field::Empty,
            "mcp.resource.uri" = tracing::field::Empty,
            "jsonrpc.request.id" = tracing::field::Empty,
            "mcp.protocol.version" = tracing::field::Empty,
            "mcp.session.id" = tracing::field::Empty,
            "network.transport" = tracing::field::Empty,
            "network.protocol.name" = tracing::field::Empty,
            "network.protocol.version" = tracing::field::Empty,
            "client.address" = tracing::field::Empty,
            "client.port" = tracing::field::Empty,
            "error.type" = tracing::field::Empty,
            "rpc.response.status_code" = tracing::field::Empty,
            "toolmetadata.failure.code" = tracing::field::Empty,
            "toolmetadata.correlation_id" = tracing::field::Empty,
        );
        // Without a subscriber for the span, nor the metric, nothing of the
        // request is read.
        #[cfg(not(feature = "otel"))]
        if !span.is_disabled() {
            describe(&span, method, target, context, &Seen::of(context));
        }
        #[cfg(feature = "otel")]
        let seen = Seen::of(context);
        #[cfg(feature = "otel")]
        if !span.is_disabled() {
            describe(&span, method, target, context, &seen);
        }
        Operation {
            access: super::access_log::Access::start(method, target.name(), context),
            #[cfg(feature = "otel")]
            metric: metrics::Attributes::new(method, target, &seen),
            #[cfg(feature = "otel")]
            started: std::time::Instant::now(),
            span,
        }
    }

    /// The access line names `name`, which the server does not have.
    pub(super) fn unknown(&mut self, name: &str) {
        if let Some(access) = &mut self.access {
            access.unknown(name);
        }
    }

    /// The span, for the request's work to run in.
    pub(super) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Ends a `tools/call` answered with `result`: `error.type` is
    /// `tool_error` for `isError`, and a declared failure's code and
    /// correlation id are recorded, as the log line names them.
    pub(super) fn finish_call(mut self, result: &CallToolResult) {
        if result.is_error != Some(true) {
            return self.finish(None);
        }
        let failure = result
            .meta
            .as_ref()
            .and_then(|meta| meta.0.get(super::call::TOOL_FAILURE_META));
        let field = |key: &str| failure.and_then(|f| f.get(key)).and_then(|v| v.as_str());
        if let Some(code) = field("code") {
            self.span.record("toolmetadata.failure.code", code);
            if let Some(access) = self.access.take() {
                access.finish(&format!("tool_error:{}", shorten(code, 64)));
            }
        }
        if let Some(id) = field("correlationId") {
            self.span.record("toolmetadata.correlation_id", id);
        }
        let text = result
            .content
            .iter()
            .find_map(|block| block.as_text().map(|t| t.text.as_str()));
        self.finish(Some((TOOL_ERROR, text)));
    }

    /// Ends a request answered with `outcome`: a JSON-RPC error's code is
    /// its `error.type`.
    pub(super) fn finish_with<T>(self, outcome: &Result<T, ErrorData>) {
        match outcome {
            Ok(_) => self.finish(None),
            Err(e) => {
                let code = e.code.0.to_string();
                self.span.record("rpc.response.status_code", code.as_str());
                self.finish(Some((&code, Some(&e.message))));
            }
        }
    }

    fn finish(mut self, error: Option<(&str, Option<&str>)>) {
        if let Some(access) = self.access.take() {
            match error {
                None => access.finish("ok"),
                Some((TOOL_ERROR, _)) => access.finish(TOOL_ERROR),
                Some((code, _)) => access.finish(&format!("error:{code}")),
            }
        }
        if let Some((kind, message)) = error {
            self.span.record("error.type", kind);
            self.span.record("otel.status_code", "error");
            if let Some(message) = message {
                self.span.record(
                    "otel.status_description",
                    toolmetadata_core::seam::shorten(message, 256).as_str(),
                );
            }
        }
        #[cfg(feature = "otel")]
        self.metric
            .record(self.started.elapsed(), error.map(|(kind, _)| kind));
    }
}

/// What a request is about, as its span names it.
#[derive(Clone, Copy)]
pub(super) enum Target<'a> {
    /// A request about no one thing (`tools/list`).
    None,
    /// `tools/call` of this tool.
    Tool(&'a str),
    /// `prompts/get` of this prompt.
    #[cfg_attr(
        not(feature = "prompts"),
        expect(dead_code, reason = "only prompts/get names a prompt")
    )]
    Prompt(&'a str),
    /// `resources/read` of this URI: an attribute, never in the span's
    /// name (URIs are of unbounded cardinality).
    Resource(&'a str),
}

impl<'a> Target<'a> {
    /// The tool's or prompt's name, or the resource's URI.
    fn name(self) -> Option<&'a str> {
        match self {
            Target::Tool(name) | Target::Prompt(name) | Target::Resource(name) => Some(name),
            Target::None => None,
        }
    }
}

/// What the transport says of a request.
struct Seen {
    /// `tcp` over HTTP, `pipe` otherwise (stdio, or a stream the
    /// application gave).
    transport: &'static str,
    #[cfg(feature = "http")]
    http: Option<HttpSeen>,
    protocol: Option<String>,
}

#[cfg(feature = "http")]
struct HttpSeen {
    version: &'static str,
    session: Option<String>,
    client: Option<std::net::SocketAddr>,
}

impl Seen {
    fn of(context: &RequestContext<RoleServer>) -> Seen {
        let protocol = context
            .protocol_version()
            .map(|version| version.as_str().to_owned());
        #[cfg(feature = "http")]
        if let Some(parts) = context.extensions.get::<axum::http::request::Parts>() {
            let version = match parts.version {
                axum::http::Version::HTTP_10 => "1.0",
                axum::http::Version::HTTP_2 => "2",
                axum::http::Version::HTTP_3 => "3",
                _ => "1.1",
            };
            let session = super::http::session_named(&parts.headers);
            let client = parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|info| info.0);
            return Seen {
                transport: "tcp",
                http: Some(HttpSeen {
                    version,
                    session,
                    client,
                }),
                protocol,
            };
        }
        Seen {
            transport: "pipe",
            #[cfg(feature = "http")]
            http: None,
            protocol,
        }
    }
}

/// Records what the span says of the request, once it is known to be wanted.
fn describe(
    span: &tracing::Span,
    method: &str,
    target: Target<'_>,
    context: &RequestContext<RoleServer>,
    seen: &Seen,
) {
    let name = match target {
        Target::Tool(name) | Target::Prompt(name) => {
            format!("{method} {}", toolmetadata_core::seam::shorten(name, 128))
        }
        Target::None | Target::Resource(_) => method.to_owned(),
    };
    span.record("otel.name", name.as_str());
    match target {
        Target::Tool(name) => {
            span.record("gen_ai.operation.name", "execute_tool");
            span.record(
                "gen_ai.tool.name",
                toolmetadata_core::seam::shorten(name, 128).as_str(),
            );
        }
        Target::Prompt(name) => {
            span.record(
                "gen_ai.prompt.name",
                toolmetadata_core::seam::shorten(name, 128).as_str(),
            );
        }
        Target::Resource(uri) => {
            span.record(
                "mcp.resource.uri",
                toolmetadata_core::seam::shorten(uri, 1024).as_str(),
            );
        }
        Target::None => {}
    }
    let id = match &context.id {
        rmcp::model::NumberOrString::Number(n) => n.to_string(),
        rmcp::model::NumberOrString::String(s) => toolmetadata_core::seam::shorten(s, 128),
    };
    span.record("jsonrpc.request.id", id.as_str());
    if let Some(version) = &seen.protocol {
        span.record("mcp.protocol.version", version.as_str());
    }
    span.record("network.transport", seen.transport);
    #[cfg(feature = "http")]
    if let Some(http) = &seen.http {
        span.record("network.protocol.name", "http");
        span.record("network.protocol.version", http.version);
        if let Some(session) = &http.session {
            span.record("mcp.session.id", session.as_str());
        }
        if let Some(client) = http.client {
            span.record("client.address", client.ip().to_string().as_str());
            span.record("client.port", client.port());
        }
    }
    #[cfg(feature = "otel")]
    context::continue_trace(span, context);
}

#[cfg(feature = "otel")]
mod context {
    //! The trace context a client sends in `params._meta` (SEP-414), or
    //! else in the HTTP request's headers, as the span's parent.

    use opentelemetry::propagation::Extractor;
    use opentelemetry::trace::TraceContextExt;
    use rmcp::service::{RequestContext, RoleServer};
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    /// The keys SEP-414 reserves, unprefixed, in `_meta`.
    const KEYS: [&str; 3] = ["traceparent", "tracestate", "baggage"];

    /// A value longer than this is not trace context (W3C's own limits
    /// are far below it); it is left unread.
    const MAX_VALUE: usize = 8 * 1024;

    struct Meta<'a>(&'a serde_json::Map<String, serde_json::Value>);

    impl Extractor for Meta<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            self.0
                .get(key)
                .and_then(|v| v.as_str())
                .filter(|v| v.len() <= MAX_VALUE)
        }

        fn keys(&self) -> Vec<&str> {
            KEYS.into_iter()
                .filter(|k| self.0.contains_key(*k))
                .collect()
        }
    }

    #[cfg(feature = "http")]
    struct Headers<'a>(&'a axum::http::HeaderMap);

    #[cfg(feature = "http")]
    impl Extractor for Headers<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            self.0
                .get(key)
                .and_then(|v| v.to_str().ok())
                .filter(|v| v.len() <= MAX_VALUE)
        }

        fn keys(&self) -> Vec<&str> {
            KEYS.into_iter()
                .filter(|k| self.0.contains_key(*k))
                .collect()
        }
    }

    /// Makes the client's span the parent of `span`: from `_meta` first
    /// (it names the MCP request itself, whatever carried it), else from
    /// the HTTP headers; without either, `span` starts a trace of its own,
    /// rather than join a span that lasts as long as the session (rmcp's).
    /// The span that was current is kept as a link, as the conventions ask.
    pub(super) fn continue_trace(span: &tracing::Span, request: &RequestContext<RoleServer>) {
        let from_meta = opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.extract(&Meta(&request.meta.0))
        });
        let parent = if from_meta.span().span_context().is_valid() {
            from_meta
        } else {
            from_headers(request).unwrap_or_default()
        };
        let ambient = tracing::Span::current().context();
        let ambient = ambient.span().span_context().clone();
        if span.set_parent(parent).is_err() {
            return;
        }
        if ambient.is_valid() {
            span.add_link(ambient);
        }
    }

    #[cfg(feature = "http")]
    fn from_headers(request: &RequestContext<RoleServer>) -> Option<opentelemetry::Context> {
        let parts = request.extensions.get::<axum::http::request::Parts>()?;
        let cx = opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.extract(&Headers(&parts.headers))
        });
        cx.span().span_context().is_valid().then_some(cx)
    }

    #[cfg(not(feature = "http"))]
    fn from_headers(_: &RequestContext<RoleServer>) -> Option<opentelemetry::Context> {
        None
    }
}

#[cfg(feature = "otel")]
mod metrics {
    //! `mcp.server.operation.duration`, on the global meter provider.

    use std::sync::OnceLock;
    use std::time::Duration;

    use opentelemetry::KeyValue;
    use opentelemetry::metrics::Histogram;

    use super::{Seen, Target};

    /// The buckets the conventions advise for the MCP duration metrics.
    const BOUNDARIES: [f64; 14] = [
        0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
    ];

    /// Made on first use, from the meter provider installed by then
    /// (`telemetry::Otlp::install`, or the application's own).
    fn histogram() -> &'static Histogram<f64> {
        static HISTOGRAM: OnceLock<Histogram<f64>> = OnceLock::new();
        HISTOGRAM.get_or_init(|| {
            opentelemetry::global::meter("toolmetadata")
                .f64_histogram("mcp.server.operation.duration")
                .with_unit("s")
                .with_description(
                    "MCP request or notification duration as observed on the receiver \
                     from the time it was received until the result or ack is sent.",
                )
                .with_boundaries(BOUNDARIES.to_vec())
                .build()
        })
    }

    /// The metric's attributes but `error.type`, known at the start.
    pub(super) struct Attributes(Vec<KeyValue>);

    impl Attributes {
        pub(super) fn new(method: &'static str, target: Target<'_>, seen: &Seen) -> Attributes {
            let mut attributes = vec![
                KeyValue::new("mcp.method.name", method),
                KeyValue::new("network.transport", seen.transport),
            ];
            match target {
                // Only names the server has (`Operation::start`'s callers
                // say `Target::None` for others): a client cannot grow the
                // metric's series.
                Target::Tool(name) => {
                    attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
                    attributes.push(KeyValue::new(
                        "gen_ai.tool.name",
                        toolmetadata_core::seam::shorten(name, 128),
                    ));
                }
                Target::Prompt(name) => attributes.push(KeyValue::new(
                    "gen_ai.prompt.name",
                    toolmetadata_core::seam::shorten(name, 128),
                )),
                Target::None | Target::Resource(_) => {}
            }
            if let Some(version) = &seen.protocol {
                attributes.push(KeyValue::new("mcp.protocol.version", version.clone()));
            }
            Attributes(attributes)
        }

        pub(super) fn record(mut self, took: Duration, error: Option<&str>) {
            if let Some(kind) = error {
                self.0.push(KeyValue::new("error.type", kind.to_owned()));
            }
            histogram().record(took.as_secs_f64(), &self.0);
        }
    }
}
