//! An OTLP/HTTP receiver for tests: it takes `POST /v1/traces` and
//! `POST /v1/metrics` with protobuf bodies, as a collector does, decodes them
//! with the OpenTelemetry project's own message types (`opentelemetry-proto`)
//! and keeps the spans and metrics for a test to read.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::metric;
use prost::Message;

/// One span as received.
#[derive(Clone, Debug)]
pub struct ReceivedSpan {
    /// The span's name.
    pub name: String,
    /// `SPAN_KIND_SERVER` and so on.
    pub kind: String,
    /// Hex, 32 digits.
    pub trace_id: String,
    /// Hex, 16 digits.
    pub span_id: String,
    /// Hex, 16 digits; empty for a root span.
    pub parent_span_id: String,
    /// Its attributes, each value as text.
    pub attributes: BTreeMap<String, String>,
    /// `STATUS_CODE_ERROR`, `STATUS_CODE_UNSET`…
    pub status: String,
    /// The status' message.
    pub status_message: String,
    /// The resource's attributes (`service.name`…).
    pub resource: BTreeMap<String, String>,
    /// The trace ids of its links.
    pub links: Vec<String>,
}

/// One point of a histogram as received.
#[derive(Clone, Debug)]
pub struct HistogramPoint {
    /// The metric's name.
    pub metric: String,
    /// Its unit.
    pub unit: String,
    /// The point's attributes, each value as text.
    pub attributes: BTreeMap<String, String>,
    /// How many values it counts.
    pub count: u64,
    /// Their sum.
    pub sum: f64,
}

#[derive(Default)]
struct Received {
    spans: Vec<ReceivedSpan>,
    histograms: Vec<HistogramPoint>,
    /// Requests that were not OTLP as a collector takes it: the path and why.
    refused: Vec<String>,
}

/// A receiver listening on loopback until dropped.
pub struct OtlpReceiver {
    addr: SocketAddr,
    received: Arc<Mutex<Received>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl OtlpReceiver {
    /// Listens on a free loopback port.
    pub async fn start() -> OtlpReceiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the OTLP receiver");
        let addr = listener.local_addr().expect("its address");
        let received = Arc::new(Mutex::new(Received::default()));
        let kept = received.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let kept = kept.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let kept = kept.clone();
                        async move { Ok::<_, hyper::Error>(take(request, &kept).await) }
                    });
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(io, service)
                        .await;
                });
            }
        });
        OtlpReceiver {
            addr,
            received,
            task,
        }
    }

    /// The base URL to export to (`http://127.0.0.1:PORT`).
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The spans received so far.
    pub fn spans(&self) -> Vec<ReceivedSpan> {
        self.lock().spans.clone()
    }

    /// The histogram points received so far.
    pub fn histograms(&self) -> Vec<HistogramPoint> {
        self.lock().histograms.clone()
    }

    /// Requests refused as not OTLP/HTTP protobuf, with why.
    pub fn refused(&self) -> Vec<String> {
        self.lock().refused.clone()
    }

    /// Waits up to `limit` until `ready` holds of the spans received.
    pub async fn wait_for_spans(
        &self,
        limit: Duration,
        ready: impl Fn(&[ReceivedSpan]) -> bool,
    ) -> Vec<ReceivedSpan> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let spans = self.spans();
            if ready(&spans) || tokio::time::Instant::now() >= deadline {
                return spans;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Received> {
        self.received.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What a collector answers: 200 with an empty export response for a
/// decoded request, 400 or 404 otherwise (and the reason kept).
async fn take(request: Request<Incoming>, kept: &Mutex<Received>) -> Response<Full<Bytes>> {
    let path = request.uri().path().to_owned();
    let content_type = request
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let refuse = |status: StatusCode, why: String| {
        kept.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .refused
            .push(format!("{path}: {why}"));
        let mut response = Response::new(Full::new(Bytes::from(why)));
        *response.status_mut() = status;
        response
    };
    if request.method() != hyper::Method::POST {
        return refuse(StatusCode::METHOD_NOT_ALLOWED, "not a POST".into());
    }
    if content_type != "application/x-protobuf" {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("content type {content_type:?}"),
        );
    }
    let body = match Limited::new(request.into_body(), 16 << 20).collect().await {
        Ok(body) => body.to_bytes(),
        Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("body: {e}")),
    };
    match path.as_str() {
        "/v1/traces" => match ExportTraceServiceRequest::decode(body) {
            Ok(export) => {
                let spans = spans_of(export);
                kept.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .spans
                    .extend(spans);
            }
            Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("traces: {e}")),
        },
        "/v1/metrics" => match ExportMetricsServiceRequest::decode(body) {
            Ok(export) => {
                let points = histograms_of(export);
                kept.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .histograms
                    .extend(points);
            }
            Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("metrics: {e}")),
        },
        _ => return refuse(StatusCode::NOT_FOUND, "no such signal".into()),
    }
    let mut response = Response::new(Full::new(Bytes::new()));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/x-protobuf"),
    );
    response
}

fn spans_of(export: ExportTraceServiceRequest) -> Vec<ReceivedSpan> {
    let mut spans = Vec::new();
    for resource_spans in export.resource_spans {
        let resource = resource_spans
            .resource
            .map(|r| attributes(&r.attributes))
            .unwrap_or_default();
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                let kind =
                    opentelemetry_proto::tonic::trace::v1::span::SpanKind::try_from(span.kind)
                        .map(|k| k.as_str_name().to_owned())
                        .unwrap_or_else(|_| span.kind.to_string());
                let (status, status_message) = match &span.status {
                    Some(status) => (
                        opentelemetry_proto::tonic::trace::v1::status::StatusCode::try_from(
                            status.code,
                        )
                        .map(|c| c.as_str_name().to_owned())
                        .unwrap_or_else(|_| status.code.to_string()),
                        status.message.clone(),
                    ),
                    None => ("STATUS_CODE_UNSET".to_owned(), String::new()),
                };
                spans.push(ReceivedSpan {
                    name: span.name,
                    kind,
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent_span_id: hex(&span.parent_span_id),
                    attributes: attributes(&span.attributes),
                    status,
                    status_message,
                    resource: resource.clone(),
                    links: span.links.iter().map(|l| hex(&l.trace_id)).collect(),
                });
            }
        }
    }
    spans
}

fn histograms_of(export: ExportMetricsServiceRequest) -> Vec<HistogramPoint> {
    let mut points = Vec::new();
    for resource_metrics in export.resource_metrics {
        for scope in resource_metrics.scope_metrics {
            for m in scope.metrics {
                let Some(metric::Data::Histogram(histogram)) = &m.data else {
                    continue;
                };
                for point in &histogram.data_points {
                    points.push(HistogramPoint {
                        metric: m.name.clone(),
                        unit: m.unit.clone(),
                        attributes: attributes(&point.attributes),
                        count: point.count,
                        sum: point.sum.unwrap_or_default(),
                    });
                }
            }
        }
    }
    points
}

fn attributes(list: &[KeyValue]) -> BTreeMap<String, String> {
    list.iter()
        .map(|kv| {
            (
                kv.key.clone(),
                kv.value.as_ref().map(text).unwrap_or_default(),
            )
        })
        .collect()
}

fn text(value: &AnyValue) -> String {
    match &value.value {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(any_value::Value::DoubleValue(d)) => d.to_string(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
