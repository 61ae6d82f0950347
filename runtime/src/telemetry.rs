//! Exporting the server's spans and metrics over OTLP/HTTP (feature `otlp`).
//!
//! The server makes a `tracing` span per request, named and attributed as
//! the OpenTelemetry semantic conventions for MCP say (`tools/call
//! get_weather`, `mcp.method.name`, `gen_ai.tool.name`, `error.type`,
//! `mcp.session.id`…), whose parent is the trace context the client sent in
//! `params._meta`; and it records `mcp.server.operation.duration`. [`Otlp`]
//! sends both to an OpenTelemetry collector (or any OTLP/HTTP receiver):
//! spans to `ENDPOINT/v1/traces`, metrics to `ENDPOINT/v1/metrics`.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use tracing_subscriber::prelude::*;
//!
//! let telemetry = toolmetadata::telemetry::Otlp::new("http://127.0.0.1:4318")
//!     .service_name("weather")
//!     .install()?;
//! tracing_subscriber::registry().with(telemetry.layer()).init();
//! // … serve; then, before the process ends, send what is buffered:
//! telemetry.shutdown().await?;
//! # Ok(())
//! # }
//! ```
//!
//! An application that sets up OpenTelemetry its own way needs only the
//! `otel` feature: the spans then join its `tracing-opentelemetry` layer, the
//! trace context is read with its global propagator and the metric recorded
//! on its global meter provider.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;

/// How long shutdown may take unless set.
const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(3);

/// Where and how to export: build with [`Otlp::new`], then
/// [`install`](Otlp::install).
#[derive(Clone)]
#[must_use = "telemetry is exported only once installed"]
pub struct Otlp {
    endpoint: String,
    service_name: Option<String>,
    headers: HashMap<String, String>,
    timeout: Duration,
    metrics_interval: Duration,
    shutdown_timeout: Duration,
}

/// Headers' values (an API key) and the endpoint's password stay out.
impl fmt::Debug for Otlp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut headers: Vec<&str> = self.headers.keys().map(String::as_str).collect();
        headers.sort_unstable();
        f.debug_struct("Otlp")
            .field("endpoint", &shown(&self.endpoint))
            .field("service_name", &self.service_name)
            .field("headers", &headers)
            .field("timeout", &self.timeout)
            .field("metrics_interval", &self.metrics_interval)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .finish()
    }
}

/// `endpoint` fit for a log or an error: no user or password, at most 200
/// characters.
fn shown(endpoint: &str) -> String {
    let Some((scheme, rest)) = endpoint.split_once("://") else {
        return toolmetadata_core::seam::shorten(endpoint, 200);
    };
    let (authority, path) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let hidden = if host.len() < authority.len() {
        "***@"
    } else {
        ""
    };
    toolmetadata_core::seam::shorten(&format!("{scheme}://{hidden}{host}{path}"), 200)
}

impl Otlp {
    /// Export to the OTLP/HTTP receiver at `endpoint`, its base URL
    /// (`http://127.0.0.1:4318`): `/v1/traces` and `/v1/metrics` are added.
    pub fn new(endpoint: impl Into<String>) -> Otlp {
        Otlp {
            endpoint: endpoint.into(),
            service_name: None,
            headers: HashMap::new(),
            timeout: Duration::from_secs(10),
            metrics_interval: Duration::from_secs(60),
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
        }
    }

    /// The `service.name` of the spans' and metrics' resource (else the
    /// SDK's default, which reads `OTEL_SERVICE_NAME`).
    pub fn service_name(mut self, name: impl Into<String>) -> Otlp {
        self.service_name = Some(name.into());
        self
    }

    /// A header sent with every export: an API key a vendor's endpoint asks
    /// for, say.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Otlp {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// How long one export may take, connection and answer included
    /// (10 s unless set).
    pub fn timeout(mut self, timeout: Duration) -> Otlp {
        self.timeout = timeout;
        self
    }

    /// How often metrics are sent (every 60 s unless set; at shutdown too).
    pub fn metrics_interval(mut self, interval: Duration) -> Otlp {
        self.metrics_interval = interval;
        self
    }

    /// How long [`Telemetry::shutdown`] may take in all, spans and metrics
    /// sent at once (3 s unless set): a collector that does not answer
    /// holds the process's exit no longer.
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Otlp {
        self.shutdown_timeout = timeout;
        self
    }

    /// Starts exporting: spans in batches and metrics periodically, each on
    /// a thread of the SDK's, the HTTP requests on the current Tokio
    /// runtime. Sets the global meter provider, tracer provider and
    /// propagator (W3C Trace Context and Baggage), so that the server's
    /// metrics and the client's trace context are taken up. Put
    /// [`Telemetry::layer`] in the `tracing` subscriber for the spans.
    ///
    /// # Errors
    ///
    /// Outside a Tokio runtime, for an endpoint that is not an `http` or
    /// `https` URL, or when the exporter cannot be built.
    pub fn install(self) -> Result<Telemetry, TelemetryError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
            TelemetryError::Setup("telemetry::Otlp::install needs a Tokio runtime".to_owned())
        })?;
        let base = self.endpoint.trim_end_matches('/');
        let uri: hyper::Uri = base.parse().map_err(|e| {
            TelemetryError::Setup(format!("the OTLP endpoint `{}`: {e}", shown(base)))
        })?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.host().is_none() {
            return Err(TelemetryError::Setup(format!(
                "the OTLP endpoint `{}` is not an http or https URL",
                shown(base)
            )));
        }
        let client = OnRuntime::new(runtime, self.timeout)?;
        let spans = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(client.clone())
            .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
            .with_endpoint(format!("{base}/v1/traces"))
            .with_timeout(self.timeout)
            .with_headers(self.headers.clone())
            .build()
            .map_err(|e| TelemetryError::Setup(format!("the OTLP span exporter: {e}")))?;
        let metrics = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_http_client(client)
            .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
            .with_endpoint(format!("{base}/v1/metrics"))
            .with_timeout(self.timeout)
            .with_headers(self.headers)
            .build()
            .map_err(|e| TelemetryError::Setup(format!("the OTLP metric exporter: {e}")))?;
        let mut resource = opentelemetry_sdk::Resource::builder();
        if let Some(name) = self.service_name {
            resource = resource.with_service_name(name);
        }
        let resource = resource.build();
        let tracer = SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .with_resource(resource.clone())
            .build();
        let meter = SdkMeterProvider::builder()
            .with_reader(
                PeriodicReader::builder(metrics)
                    .with_interval(self.metrics_interval)
                    .build(),
            )
            .with_resource(resource)
            .build();
        opentelemetry::global::set_tracer_provider(tracer.clone());
        opentelemetry::global::set_meter_provider(meter.clone());
        opentelemetry::global::set_text_map_propagator(
            opentelemetry::propagation::TextMapCompositePropagator::new(vec![
                Box::new(opentelemetry_sdk::propagation::TraceContextPropagator::new()),
                Box::new(opentelemetry_sdk::propagation::BaggagePropagator::new()),
            ]),
        );
        Ok(Telemetry {
            tracer,
            meter,
            shutdown_timeout: self.shutdown_timeout,
        })
    }
}

/// Telemetry being exported: the layer for the `tracing` subscriber, and
/// the [`shutdown`](Telemetry::shutdown) that sends what is left.
pub struct Telemetry {
    tracer: SdkTracerProvider,
    meter: SdkMeterProvider,
    /// How long shutdown may take in all.
    shutdown_timeout: Duration,
}

impl fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Telemetry").finish_non_exhaustive()
    }
}

impl Telemetry {
    /// The `tracing` layer that turns spans into OpenTelemetry spans and
    /// exports them. It takes every span its filter lets through: the
    /// server's are of target [`crate::server::SPAN_TARGET`] at INFO.
    pub fn layer<S>(&self) -> impl tracing_subscriber::Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        use opentelemetry::trace::TracerProvider as _;
        tracing_opentelemetry::layer().with_tracer(self.tracer.tracer("toolmetadata"))
    }

    /// Sends the spans and metrics not sent yet and stops exporting, within
    /// the [`Otlp::shutdown_timeout`]. See [`shutdown_within`](Self::shutdown_within).
    ///
    /// # Errors
    ///
    /// When what was left could not be sent in time.
    pub async fn shutdown(self) -> Result<(), TelemetryError> {
        let within = self.shutdown_timeout;
        self.shutdown_within(within).await
    }

    /// Sends the spans and metrics not sent yet and stops exporting, both at
    /// once, each on a thread of its own (the SDK's shutdown blocks; not
    /// Tokio's blocking pool, whose threads a runtime waits for when it
    /// drops), and returns within `within` whatever the collector does: what
    /// is not sent by then is given up, and the process may exit.
    ///
    /// # Errors
    ///
    /// When what was left could not be sent, or not within `within`.
    pub async fn shutdown_within(self, within: Duration) -> Result<(), TelemetryError> {
        let Telemetry { tracer, meter, .. } = self;
        let spans = detached(move || tracer.shutdown_with_timeout(within));
        let metrics = detached(move || meter.shutdown_with_timeout(within));
        let both = async { (spans.await, metrics.await) };
        match tokio::time::timeout(within, both).await {
            Ok((Ok(Ok(())), Ok(Ok(())))) => Ok(()),
            Ok((spans, metrics)) => Err(TelemetryError::Shutdown(format!(
                "telemetry not all sent: spans {spans:?}, metrics {metrics:?}"
            ))),
            Err(_) => Err(TelemetryError::Shutdown(format!(
                "telemetry not all sent within {} ms: the collector did not answer",
                within.as_millis()
            ))),
        }
    }
}

/// `work` on a thread of its own; its result, or an error if the thread
/// could not start or panicked.
fn detached<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> impl Future<Output = Result<T, String>> {
    let (sent, result) = tokio::sync::oneshot::channel();
    let started = std::thread::Builder::new()
        .name("toolmetadata-telemetry-shutdown".to_owned())
        .spawn(move || {
            let _ = sent.send(work());
        });
    async move {
        started.map_err(|e| e.to_string())?;
        result
            .await
            .map_err(|_| "the shutdown thread panicked".to_owned())
    }
}

/// Why telemetry could not be set up or sent. `Display` is the message.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TelemetryError {
    /// [`Otlp::install`] could not set up: outside a Tokio runtime, an
    /// endpoint that is not an `http` or `https` URL, an exporter or TLS
    /// that could not be built.
    Setup(String),
    /// [`Telemetry::shutdown`] did not send everything, or did not finish.
    Shutdown(String),
}

impl fmt::Display for TelemetryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TelemetryError::Setup(message) | TelemetryError::Shutdown(message) => {
                f.write_str(message)
            }
        }
    }
}

impl std::error::Error for TelemetryError {}

type Connector = hyper_rustls::HttpsConnector<hyper_util::client::legacy::connect::HttpConnector>;

/// The exporters' HTTP client: hyper, each request run on the
/// application's Tokio runtime, since the SDK's export threads have none.
#[derive(Clone, Debug)]
struct OnRuntime {
    client: opentelemetry_http::hyper::HyperClient<Connector>,
    runtime: tokio::runtime::Handle,
}

impl OnRuntime {
    fn new(runtime: tokio::runtime::Handle, timeout: Duration) -> Result<Self, TelemetryError> {
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
            .map_err(|e| TelemetryError::Setup(format!("no TLS for OTLP: {e}")))?
            .https_or_http()
            .enable_http1()
            .build();
        Ok(OnRuntime {
            client: opentelemetry_http::hyper::HyperClient::new(connector, timeout, None),
            runtime,
        })
    }
}

impl HttpClient for OnRuntime {
    fn send_bytes<'life0, 'async_trait>(
        &'life0 self,
        request: Request<Bytes>,
    ) -> Pin<Box<dyn Future<Output = Result<Response<Bytes>, HttpError>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        let client = self.client.clone();
        let sent = self
            .runtime
            .spawn(async move { client.send_bytes(request).await });
        Box::pin(async move { sent.await.map_err(|e| Box::new(e) as HttpError)? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_stay_out_of_debug_and_errors() {
        let otlp = Otlp::new("https://user:hunter2@collector.example/otlp")
            .header("x-api-key", "sk-secret");
        let debug = format!("{otlp:?}");
        assert!(
            !debug.contains("hunter2") && !debug.contains("sk-secret"),
            "{debug}"
        );
        assert!(
            debug.contains("https://***@collector.example/otlp"),
            "{debug}"
        );
        assert!(debug.contains("x-api-key"), "{debug}");
        assert_eq!(shown("ftp://a:b@c"), "ftp://***@c");
        assert_eq!(shown("http://127.0.0.1:4318"), "http://127.0.0.1:4318");
    }

    #[tokio::test]
    async fn a_bad_endpoint_is_refused_without_its_password() {
        let e = Otlp::new("ftp://user:hunter2@collector")
            .install()
            .expect_err("refused");
        assert!(matches!(e, TelemetryError::Setup(_)), "{e:?}");
        assert!(e.to_string().contains("not an http or https URL"), "{e}");
        assert!(!e.to_string().contains("hunter2"), "{e}");
    }

    /// Installing needs a Tokio runtime to export from: outside one, a
    /// setup error that says so.
    #[test]
    fn outside_a_runtime_install_is_a_setup_error() {
        let e = Otlp::new("http://127.0.0.1:4318")
            .install()
            .expect_err("no runtime");
        assert_eq!(
            e,
            TelemetryError::Setup("telemetry::Otlp::install needs a Tokio runtime".to_owned())
        );
    }
}
