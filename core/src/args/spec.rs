//! What the decoder knows of each parameter: its JSON name, type, whether it is
//! required, and the constraints the schema shows.
//!
//! Generated code builds these as `static`s with `const fn` setters; tools loaded
//! at run time build them from [`ToolParameter`]s. Either way the checks are the
//! same code.

use std::borrow::Cow;
#[cfg(feature = "regex")]
use std::sync::OnceLock;

use crate::metadata::{Number, ParamType, ScalarType, ToolParameter};

/// A parameter as the argument decoder sees it.
#[derive(Debug)]
pub struct ParamSpec {
    pub(crate) name: Cow<'static, str>,
    pub(crate) ty: ParamType,
    pub(crate) required: bool,
    // Generated specs are built in constants, where only `Copy` fields can be
    // set; specs of tools loaded at run time own their strings instead.
    enum_static: &'static [&'static str],
    enum_owned: Vec<String>,
    pub(crate) minimum: Option<Number>,
    pub(crate) maximum: Option<Number>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pattern_static: Option<&'static str>,
    pattern_owned: Option<String>,
    // Set with the pattern, and only then: a program none of whose parameters
    // has a pattern never reaches the regex engine, so does not link it (its
    // Unicode tables alone are ~250 KB of relocated data, dirtied at load).
    #[cfg(feature = "regex")]
    compile: Option<fn(&str) -> Option<regex::Regex>>,
    #[cfg(feature = "regex")]
    compiled: OnceLock<Option<regex::Regex>>,
    pub(crate) min_items: Option<u64>,
    pub(crate) max_items: Option<u64>,
}

impl ParamSpec {
    /// An optional parameter with no constraints.
    pub const fn new(name: &'static str, ty: ParamType) -> Self {
        ParamSpec {
            name: Cow::Borrowed(name),
            ty,
            required: false,
            enum_static: &[],
            enum_owned: Vec::new(),
            minimum: None,
            maximum: None,
            min_length: None,
            max_length: None,
            pattern_static: None,
            pattern_owned: None,
            #[cfg(feature = "regex")]
            compile: None,
            #[cfg(feature = "regex")]
            compiled: OnceLock::new(),
            min_items: None,
            max_items: None,
        }
    }

    /// An optional `string` parameter.
    pub const fn string(name: &'static str) -> Self {
        Self::new(name, ParamType::Scalar(ScalarType::String))
    }

    /// An optional `integer` parameter.
    pub const fn integer(name: &'static str) -> Self {
        Self::new(name, ParamType::Scalar(ScalarType::Integer))
    }

    /// An optional `number` parameter.
    pub const fn number(name: &'static str) -> Self {
        Self::new(name, ParamType::Scalar(ScalarType::Number))
    }

    /// An optional `boolean` parameter.
    pub const fn boolean(name: &'static str) -> Self {
        Self::new(name, ParamType::Scalar(ScalarType::Boolean))
    }

    /// An optional array of strings.
    pub const fn string_array(name: &'static str) -> Self {
        Self::new(name, ParamType::Array(ScalarType::String))
    }

    /// An optional array of integers.
    pub const fn integer_array(name: &'static str) -> Self {
        Self::new(name, ParamType::Array(ScalarType::Integer))
    }

    /// An optional array of numbers.
    pub const fn number_array(name: &'static str) -> Self {
        Self::new(name, ParamType::Array(ScalarType::Number))
    }

    /// An optional array of booleans.
    pub const fn boolean_array(name: &'static str) -> Self {
        Self::new(name, ParamType::Array(ScalarType::Boolean))
    }

    /// Marks the parameter required.
    pub const fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// The allowed values (of the value, or of each item).
    pub const fn one_of(mut self, values: &'static [&'static str]) -> Self {
        self.enum_static = values;
        self
    }

    /// The lowest value (of the value, or of each item).
    pub const fn minimum(mut self, minimum: Number) -> Self {
        self.minimum = Some(minimum);
        self
    }

    /// The highest value (of the value, or of each item).
    pub const fn maximum(mut self, maximum: Number) -> Self {
        self.maximum = Some(maximum);
        self
    }

    /// [`ParamSpec::minimum`] written as an integer.
    pub const fn minimum_integer(self, minimum: i64) -> Self {
        self.minimum(Number::Integer(minimum))
    }

    /// [`ParamSpec::maximum`] written as an integer.
    pub const fn maximum_integer(self, maximum: i64) -> Self {
        self.maximum(Number::Integer(maximum))
    }

    /// [`ParamSpec::minimum`] written as a float.
    pub const fn minimum_number(self, minimum: f64) -> Self {
        self.minimum(Number::Float(minimum))
    }

    /// [`ParamSpec::maximum`] written as a float.
    pub const fn maximum_number(self, maximum: f64) -> Self {
        self.maximum(Number::Float(maximum))
    }

    /// The fewest characters.
    pub const fn min_length(mut self, n: u64) -> Self {
        self.min_length = Some(n);
        self
    }

    /// The most characters.
    pub const fn max_length(mut self, n: u64) -> Self {
        self.max_length = Some(n);
        self
    }

    /// A regular expression the string must match somewhere.
    ///
    /// Matching needs the feature `regex`; without it, a tool that has a
    /// pattern does not compile (the generated specs are statics, so this
    /// panic is a build error that names the feature).
    pub const fn pattern(mut self, pattern: &'static str) -> Self {
        self.pattern_static = Some(pattern);
        #[cfg(feature = "regex")]
        {
            self.compile = Some(crate::metadata::pattern::compiled);
        }
        #[cfg(not(feature = "regex"))]
        panic!(
            "a parameter has a `pattern`, and toolmetadata's feature `regex` is off: add \"regex\" to toolmetadata's features"
        );
        #[cfg_attr(not(feature = "regex"), allow(unreachable_code))]
        self
    }

    /// The fewest items.
    pub const fn min_items(mut self, n: u64) -> Self {
        self.min_items = Some(n);
        self
    }

    /// The most items.
    pub const fn max_items(mut self, n: u64) -> Self {
        self.max_items = Some(n);
        self
    }

    /// The JSON name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The type.
    #[inline]
    pub fn ty(&self) -> ParamType {
        self.ty
    }

    /// Whether the argument must be given.
    pub fn is_required(&self) -> bool {
        self.required
    }

    /// The allowed values; empty when any value is allowed.
    pub fn enum_values(&self) -> impl Iterator<Item = &str> {
        self.enum_static
            .iter()
            .copied()
            .chain(self.enum_owned.iter().map(String::as_str))
    }

    pub(crate) fn has_enum(&self) -> bool {
        !self.enum_static.is_empty() || !self.enum_owned.is_empty()
    }

    /// True when the parameter has no enum and no constraint: any value of its
    /// type is accepted, so the decoder can skip the checks.
    #[inline]
    pub(crate) fn is_unconstrained(&self) -> bool {
        !self.has_enum()
            && self.minimum.is_none()
            && self.maximum.is_none()
            && self.min_length.is_none()
            && self.max_length.is_none()
            && self.pattern_source().is_none()
            && self.min_items.is_none()
            && self.max_items.is_none()
    }

    /// The `pattern`, as written.
    pub fn pattern_source(&self) -> Option<&str> {
        self.pattern_static.or(self.pattern_owned.as_deref())
    }

    /// True when the string matches the `pattern` somewhere (JSON Schema
    /// semantics), or there is no pattern. The regex is compiled on first use; one
    /// that does not compile (the loader refuses those) matches nothing.
    #[cfg(feature = "regex")]
    pub(crate) fn matches_pattern(&self, text: &str) -> Result<bool, PatternUnchecked> {
        let Some(source) = self.pattern_source() else {
            return Ok(true);
        };
        let Some(compile) = self.compile else {
            return Ok(false);
        };
        Ok(self
            .compiled
            .get_or_init(|| compile(source))
            .as_ref()
            .is_some_and(|re| re.is_match(text)))
    }

    /// Without the feature `regex` a pattern cannot be checked: an argument
    /// for it is refused (only a tool loaded at run time gets here; a
    /// generated one does not compile).
    #[cfg(not(feature = "regex"))]
    pub(crate) fn matches_pattern(&self, _text: &str) -> Result<bool, PatternUnchecked> {
        match self.pattern_source() {
            None => Ok(true),
            Some(_) => Err(PatternUnchecked),
        }
    }
}

/// A `pattern` that cannot be checked, since the feature `regex` is off.
#[derive(Debug)]
pub(crate) struct PatternUnchecked;

impl From<&ToolParameter> for ParamSpec {
    fn from(p: &ToolParameter) -> Self {
        let c = &p.constraints;
        ParamSpec {
            name: Cow::Owned(p.name.clone()),
            ty: p.ty,
            required: p.required,
            enum_static: &[],
            enum_owned: p.enum_values.clone().unwrap_or_default(),
            minimum: c.minimum,
            maximum: c.maximum,
            min_length: c.min_length,
            max_length: c.max_length,
            pattern_static: None,
            pattern_owned: c.pattern.clone(),
            #[cfg(feature = "regex")]
            compile: c
                .pattern
                .as_ref()
                .map(|_| crate::metadata::pattern::compiled as fn(&str) -> _),
            #[cfg(feature = "regex")]
            compiled: OnceLock::new(),
            min_items: c.min_items,
            max_items: c.max_items,
        }
    }
}
