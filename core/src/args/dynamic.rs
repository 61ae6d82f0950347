//! Decoding against metadata known only at run time: what a tool added with
//! `ServerBuilder::tool` decodes with, and what the decoder's fuzz target
//! drives with arbitrary metadata and arguments.

use serde_json::Value;

use super::Map;
use super::convert::Conversion;
use super::decoder::Decoder;
use super::error::ArgErrors;
use super::spec::ParamSpec;
use crate::metadata::ToolMetadata;

/// A tool's parameters, built from its checked metadata: the same checks,
/// conversions and errors as a generated argument struct's, with the values
/// kept as JSON of the schema's types.
#[derive(Debug)]
pub struct DynamicParams {
    tool: String,
    specs: Vec<ParamSpec>,
    defaults: Vec<Option<Value>>,
}

impl DynamicParams {
    /// The parameters of `metadata`, in its order.
    pub fn new(metadata: &ToolMetadata) -> Self {
        DynamicParams {
            tool: metadata.name.clone(),
            specs: metadata.parameters.iter().map(ParamSpec::from).collect(),
            defaults: metadata
                .parameters
                .iter()
                .map(|p| p.default.as_ref().map(|d| d.to_json()))
                .collect(),
        }
    }

    /// Decodes the arguments of one call: every value brought to its schema
    /// type and checked, defaults filled in, absent optional parameters left
    /// out; or every error at once.
    pub fn decode(&self, args: Map, conversion: Conversion) -> Result<Map, ArgErrors> {
        let mut decoder = Decoder::new(&self.tool, args, &self.specs, conversion);
        let mut values = Map::new();
        for (i, spec) in self.specs.iter().enumerate() {
            let value = if spec.is_required() {
                Some(decoder.required::<Value>(i))
            } else {
                decoder
                    .optional::<Value>(i)
                    .or_else(|| self.defaults.get(i).cloned().flatten())
            };
            if let Some(v) = value {
                values.insert(spec.name().to_owned(), v);
            }
        }
        decoder.finish(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::{Literal, ParamType, ScalarType, ToolParameter};

    /// `count`: a required integer `n` and a string `unit` that defaults to `m`.
    fn params() -> DynamicParams {
        let tool = ToolMetadata {
            name: "count".into(),
            parameters: vec![
                ToolParameter {
                    name: "n".into(),
                    ty: ParamType::Scalar(ScalarType::Integer),
                    required: true,
                    ..ToolParameter::default()
                },
                ToolParameter {
                    name: "unit".into(),
                    ty: ParamType::Scalar(ScalarType::String),
                    default: Some(Literal::String("m".into())),
                    ..ToolParameter::default()
                },
            ],
            ..ToolMetadata::default()
        };
        DynamicParams::new(&tool)
    }

    fn object(v: Value) -> Map {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn conversion_is_the_callers_and_defaults_are_filled_in() {
        let p = params();
        let lenient = p.decode(object(serde_json::json!({"n": "3"})), Conversion::Lenient);
        assert_eq!(
            lenient.ok(),
            Some(object(serde_json::json!({"n": 3, "unit": "m"})))
        );
        let strict = p.decode(object(serde_json::json!({"n": "3"})), Conversion::Strict);
        let errors = strict.expect_err("a string is not an integer when strict");
        assert!(errors.to_string().contains("`n`"), "{errors}");
    }
}

// Without a regex engine, a run-time tool's pattern cannot be checked: its
// argument is refused with the reason, never let through unchecked.
#[cfg(all(test, not(feature = "regex")))]
mod without_regex {
    use super::*;
    use crate::metadata::{Constraints, ToolParameter};

    #[test]
    fn a_pattern_refuses_rather_than_skips() {
        let tool = ToolMetadata {
            name: "lookup".into(),
            parameters: vec![ToolParameter {
                name: "code".into(),
                required: true,
                constraints: Constraints {
                    pattern: Some("^[A-Z]{3}$".into()),
                    ..Constraints::default()
                },
                ..ToolParameter::default()
            }],
            ..ToolMetadata::default()
        };
        let args = serde_json::json!({"code": "ABC"})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let errors = DynamicParams::new(&tool)
            .decode(args, Conversion::Lenient)
            .expect_err("an unchecked pattern is refused");
        assert!(
            errors
                .to_string()
                .contains("built without toolmetadata's feature `regex`"),
            "{errors}"
        );
    }
}
