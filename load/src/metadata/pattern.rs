//! `pattern`: the Rust regex crate's syntax, checked when the format is
//! loaded (toolmetadata-core matches it when an argument is decoded, with
//! the regex crate itself).

/// What a compiled regex may take, as the regex crate's `Regex::new` allows
/// (its default `size_limit`).
const SIZE_LIMIT: usize = 10 * (1 << 20);

/// A `pattern` compiled for the format's checks (a default or an enum value
/// matched against it): the regex crate's syntax and limits, matched by
/// regex-automata's PikeVM, so that checking tools compiles no optimising
/// engine. Arguments are matched with the regex crate (toolmetadata-core).
pub(crate) struct CheckedPattern(regex_automata::nfa::thompson::pikevm::PikeVM);

impl CheckedPattern {
    /// Whether `text` matches somewhere (JSON Schema's `pattern` semantics).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let mut cache = self.0.create_cache();
        self.0.is_match(&mut cache, text)
    }
}

/// Compiles a `pattern` as the Rust regex crate would; the error is the
/// parser's own one-line reason (`look-around … is not supported`).
pub(crate) fn compile(pattern: &str) -> Result<CheckedPattern, String> {
    use regex_automata::nfa::thompson;
    if let Err(e) = regex_syntax::ast::parse::Parser::new().parse(pattern) {
        return Err(e.kind().to_string());
    }
    // The regex crate's defaults: Unicode, UTF-8 only, nesting up to 250.
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|e| {
            let text = e.to_string();
            text.lines().last().unwrap_or("invalid").trim().to_owned()
        })?;
    let nfa = thompson::Compiler::new()
        .configure(thompson::Config::new().nfa_size_limit(Some(SIZE_LIMIT)))
        .build_from_hir(&hir)
        .map_err(|e| match e.size_limit() {
            Some(limit) => format!("Compiled regex exceeds size limit of {limit} bytes."),
            None => e.to_string(),
        })?;
    thompson::pikevm::PikeVM::new_from_nfa(nfa)
        .map(CheckedPattern)
        .map_err(|e| e.to_string())
}

/// The format's check agrees with the regex crate that arguments are matched
/// with: what compiles, what is refused (and why, for the size limit), and
/// what matches.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_agrees_with_the_regex_crate() {
        let patterns = [
            "^[A-Z]{3}$",
            r"\p{Greek}+",
            r"^\w+@\w+\.\w+$",
            "(?i)straße",
            "a|b|",
            "(",
            "a{2,1}",
            r"(?-u:\xFF)",
            r"\bword\b",
            "(?<name>x)+",
            r"(\w{100}){100}",
            r"[\p{L}&&\p{Ll}]",
            "x*?",
        ];
        // What a hostile tool file might hold: nesting past the parser's limit,
        // a repetition far past the size limit, and patterns that backtracking
        // engines take exponential time on (the PikeVM is linear), matched
        // against a long text.
        let nested = format!("{}a{}", "(".repeat(300), ")".repeat(300));
        let hostile = [nested.as_str(), r"\w{1000}{1000}", "(a*)*$", "(a|a)*b"];
        let long = "a".repeat(100_000);
        let texts = [
            "ABC", "abc", "αβγ", "a@b.c", "STRASSE", "", "word", "xx", "ß", &long,
        ];
        for pattern in patterns.into_iter().chain(hostile) {
            let ours = compile(pattern);
            let theirs = regex::Regex::new(pattern);
            assert_eq!(ours.is_ok(), theirs.is_ok(), "{pattern}");
            if let (Err(ours), Err(regex::Error::CompiledTooBig(limit))) = (&ours, &theirs) {
                assert!(ours.contains(&limit.to_string()), "{pattern}: {ours}");
            }
            if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
                for text in texts {
                    assert_eq!(
                        ours.is_match(text),
                        theirs.is_match(text),
                        "{pattern} on {text:?}"
                    );
                }
            }
        }
    }
}
