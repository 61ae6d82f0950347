//! Bound parameters (`from`): values the server fills in from the caller's
//! verified token or the request, never from the model. A call that sets
//! one itself is refused (a prompt-injected model naming another tenant is
//! the confused deputy); a required one the caller lacks refuses the call.

use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};

use crate::metadata::Source;

/// One bound parameter of a served tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::server) struct Bound {
    pub(in crate::server) name: String,
    pub(in crate::server) source: Source,
    pub(in crate::server) required: bool,
}

impl Bound {
    /// From a generated entry.
    pub(in crate::server) fn of_entry(entry: &toolmetadata_core::codegen::BoundEntry) -> Bound {
        Bound {
            name: entry.name.to_owned(),
            source: if entry.claim {
                Source::Claim(entry.key.to_owned())
            } else {
                Source::Header(entry.key.to_owned())
            },
            required: entry.required,
        }
    }

    /// Those of run-time metadata.
    pub(in crate::server) fn of_metadata(tool: &crate::metadata::ToolMetadata) -> Vec<Bound> {
        tool.parameters
            .iter()
            .filter_map(|p| {
                p.from.clone().map(|source| Bound {
                    name: p.name.clone(),
                    source,
                    required: p.required,
                })
            })
            .collect()
    }

    fn said(&self) -> String {
        match &self.source {
            Source::Claim(claim) => format!("the caller's token (claim `{claim}`)"),
            Source::Header(header) => format!("the request's header `{header}`"),
        }
    }
}

/// Fills the bound parameters of `tool` into `args` from `request`, or says
/// why the call is refused.
pub(in crate::server) fn fill(
    tool: &str,
    bound: &[Bound],
    args: &mut Map<String, Value>,
    request: Option<&RequestContext<RoleServer>>,
) -> Result<(), String> {
    for b in bound {
        if args.contains_key(&b.name) {
            return Err(format!(
                "`{tool}`: `{}` is not the caller's to give: it comes from {}",
                b.name,
                b.said()
            ));
        }
        let found = match request {
            Some(request) => value_of(&b.source, request)
                .map_err(|why| format!("`{tool}` needs `{}` from {}: {why}", b.name, b.said()))?,
            None => None,
        };
        match found {
            Some(value) => {
                args.insert(b.name.clone(), value);
            }
            None if b.required => {
                return Err(format!(
                    "`{tool}` needs `{}` from {}, which this call does not have",
                    b.name,
                    b.said()
                ));
            }
            None => {}
        }
    }
    Ok(())
}

/// The values the bound parameters of a call take from `request`, by
/// parameter (those it has; a refusal is `fill`'s to give): what a
/// `requestState` binds beside the model's arguments, so that an answer
/// given for one tenant or region never stands for another.
#[cfg(feature = "ask")]
pub(in crate::server) fn values(
    bound: &[Bound],
    request: &RequestContext<RoleServer>,
) -> Map<String, Value> {
    bound
        .iter()
        .filter_map(|b| Some((b.name.clone(), value_of(&b.source, request).ok()??)))
        .collect()
}

/// The value of `source` for this request: a claim of the principal the
/// HTTP layer verified, or a header; nothing on stdio. A header given twice
/// (or not as text) refuses the call: a client adding its own next to the
/// gateway's must not choose which counts.
fn value_of(
    source: &Source,
    request: &RequestContext<RoleServer>,
) -> Result<Option<Value>, &'static str> {
    #[cfg(feature = "http")]
    {
        let Some(parts) = request.extensions.get::<axum::http::request::Parts>() else {
            return Ok(None);
        };
        match source {
            Source::Claim(claim) => Ok(parts
                .extensions
                .get::<crate::server::auth::Principal>()
                .and_then(|p| p.claims().get(claim))
                .filter(|v| !v.is_null())
                .cloned()),
            Source::Header(header) => {
                let mut values = parts.headers.get_all(header.as_str()).iter();
                let Some(first) = values.next() else {
                    return Ok(None);
                };
                if values.next().is_some() {
                    return Err("the header is given more than once");
                }
                let text = first.to_str().map_err(|_| "the header is not text")?;
                Ok(Some(Value::String(text.trim().to_owned())))
            }
        }
    }
    #[cfg(not(feature = "http"))]
    {
        let _ = (source, request);
        Ok(None)
    }
}

/// `errors` with those of bound parameters told without their values: the
/// model did not give them, and must not learn them (a tenant's id, a
/// user's address) from an error. The whole text goes to the log at DEBUG.
pub(in crate::server) fn redacted(
    errors: crate::args::ArgErrors,
    bound: &[Bound],
) -> crate::args::ArgErrors {
    use crate::args::{ArgError, ArgErrors};
    let of = |argument: &str| {
        bound.iter().find(|b| {
            argument
                .strip_prefix(b.name.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        })
    };
    if !errors
        .errors()
        .iter()
        .any(|e| e.argument().and_then(of).is_some())
    {
        return errors;
    }
    tracing::debug!(tool = errors.tool(), "bound values refused: {errors}");
    let told = errors
        .errors()
        .iter()
        .map(|e| match e.argument().and_then(of) {
            Some(b) => ArgError::other(
                e.argument(),
                format!(
                    "`{}`: the value from {} is not one this tool accepts",
                    b.name,
                    b.said()
                ),
            ),
            None => e.clone(),
        })
        .collect();
    ArgErrors::new(errors.tool(), told)
}

/// Whether any of `bound` needs a verified token's claim.
#[cfg(feature = "http")]
pub(in crate::server) fn needs_claims(bound: &[Bound]) -> bool {
    bound.iter().any(|b| matches!(b.source, Source::Claim(_)))
}

/// The headers `bound` takes values from.
#[cfg(feature = "http")]
pub(in crate::server) fn headers(bound: &[Bound]) -> impl Iterator<Item = &str> {
    bound.iter().filter_map(|b| match &b.source {
        Source::Header(h) => Some(h.as_str()),
        Source::Claim(_) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(required: bool) -> Vec<Bound> {
        vec![Bound {
            name: "tenant".into(),
            source: Source::Claim("tenant_id".into()),
            required,
        }]
    }

    #[test]
    fn a_model_that_sets_a_bound_parameter_is_refused() {
        let mut args = Map::new();
        args.insert("tenant".into(), Value::from("someone-else"));
        let refused = fill("t", &bound(false), &mut args, None).expect_err("refused");
        assert!(refused.contains("not the caller's to give"), "{refused}");
    }

    #[test]
    fn a_bound_value_refused_is_not_shown_to_the_model() {
        use crate::args::{ArgError, ArgErrors, ArgProblem};
        let errors = ArgErrors::new(
            "t",
            vec![
                ArgError::new(
                    "tenant",
                    ArgProblem::expected("one of a, b", &Value::from("acme-secret")),
                ),
                ArgError::new("tenants", ArgProblem::new("too long: \"kept\"")),
            ],
        );
        let told = redacted(errors, &bound(true)).to_string();
        assert!(!told.contains("acme-secret"), "{told}");
        assert!(
            told.contains("`tenant`: the value from the caller's token (claim `tenant_id`)"),
            "{told}"
        );
        assert!(
            told.contains("kept"),
            "another argument's error is left whole: {told}"
        );
    }

    #[test]
    fn a_required_bound_value_missing_refuses_the_call() {
        let mut args = Map::new();
        let refused = fill("t", &bound(true), &mut args, None).expect_err("refused");
        assert!(refused.contains("claim `tenant_id`"), "{refused}");
        assert!(fill("t", &bound(false), &mut Map::new(), None).is_ok());
    }
}
