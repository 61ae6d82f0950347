//! `[limits]`: a timeout, a concurrency and a rate, each read from its text
//! (`"30s"`, `4`, `"10/min"`) and kept within what a server can hold.

use std::time::Duration;

use super::Checker;
use crate::diagnostic::Rule;
use crate::metadata::read::{RawLimits, Sp};
use crate::metadata::tree::quote;
use crate::metadata::{Limits, Rate};

/// The longest timeout and rate window: a day.
const LONGEST: Duration = Duration::from_secs(24 * 3600);

impl Checker<'_> {
    pub(super) fn check_limits(&mut self, raw: &Sp<RawLimits>) -> Limits {
        let timeout = raw.value.timeout.as_ref().and_then(|t| {
            self.limit(
                t,
                "timeout",
                duration(&t.value),
                "a duration such as \"30s\", \"500ms\" or \"2m\", above 0 and at most a day",
            )
        });
        let concurrency = raw.value.concurrency.as_ref().and_then(|c| {
            let value = u32::try_from(c.value)
                .ok()
                .filter(|n| (1..=65_535).contains(n));
            if value.is_none() {
                self.report.push(
                    self.report
                        .error(
                            Rule::BadLimit,
                            format!("`limits.concurrency` {} is not from 1 to 65535", c.value),
                        )
                        .with_primary(c.span, "not a count of calls")
                        .with_help(
                            "how many calls of the tool may run at once, such as `concurrency = 4`",
                        ),
                );
            }
            value
        });
        let rate = raw.value.rate.as_ref().and_then(|r| {
            self.limit(
                r,
                "rate",
                rate(&r.value),
                "calls per window, from 1 to 10000, such as \"10/min\", \"5/s\", \"100/h\" or \"3/10s\"",
            )
        });
        Limits {
            timeout,
            concurrency,
            rate,
        }
    }

    fn limit<T>(
        &mut self,
        raw: &Sp<String>,
        key: &str,
        parsed: Option<T>,
        expected: &str,
    ) -> Option<T> {
        if parsed.is_none() {
            self.report.push(
                self.report
                    .error(
                        Rule::BadLimit,
                        format!("`limits.{key}` {} is not {expected}", quote(&raw.value)),
                    )
                    .with_primary(raw.span, format!("not a {key}"))
                    .with_help(format!("write it as {expected}")),
            );
        }
        parsed
    }
}

/// `"30s"`, `"500ms"`, `"2m"`, `"1h"`: above zero, at most a day.
fn duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let n: u64 = number.parse().ok()?;
    let millis = match unit.trim() {
        "ms" => n,
        "s" | "sec" => n.checked_mul(1000)?,
        "m" | "min" => n.checked_mul(60_000)?,
        "h" => n.checked_mul(3_600_000)?,
        _ => return None,
    };
    let duration = Duration::from_millis(millis);
    (!duration.is_zero() && duration <= LONGEST).then_some(duration)
}

/// `"10/min"`, `"5/s"`, `"100/h"`, `"3/10s"`.
fn rate(text: &str) -> Option<Rate> {
    let (calls, per) = text.split_once('/')?;
    // The server keeps one instant per call in a caller's window.
    let calls: u32 = calls
        .trim()
        .parse()
        .ok()
        .filter(|n| (1..=10_000).contains(n))?;
    let per = per.trim();
    let per = match per {
        "s" | "sec" | "second" => Duration::from_secs(1),
        "m" | "min" | "minute" => Duration::from_secs(60),
        "h" | "hour" => Duration::from_secs(3600),
        other => duration(other)?,
    };
    Some(Rate { calls, per })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::Load;

    #[test]
    fn durations_and_rates_read_as_written() {
        assert_eq!(duration("30s"), Some(Duration::from_secs(30)));
        assert_eq!(duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(duration("2m"), Some(Duration::from_secs(120)));
        assert_eq!(duration("0s"), None);
        assert_eq!(duration("25h"), None);
        assert_eq!(duration("s"), None);
        assert_eq!(duration("10 parsecs"), None);
        assert_eq!(duration("99999999999999999999s"), None);
        assert_eq!(
            rate("10/min"),
            Some(Rate {
                calls: 10,
                per: Duration::from_secs(60)
            })
        );
        assert_eq!(
            rate("3/10s"),
            Some(Rate {
                calls: 3,
                per: Duration::from_secs(10)
            })
        );
        assert_eq!(rate("0/s"), None);
        assert_eq!(rate("10"), None);
        assert_eq!(rate("ten/min"), None);
    }

    #[test]
    fn limits_are_read_and_bad_ones_located() {
        use crate::metadata::ToolMetadata;
        let tool = ToolMetadata::from_toml_str(
            "t",
            "description = \"d\"\n[limits]\ntimeout = \"5s\"\nconcurrency = 2\nrate = \"10/min\"\n",
        )
        .expect("loads");
        assert_eq!(tool.limits.timeout, Some(Duration::from_secs(5)));
        assert_eq!(tool.limits.concurrency, Some(2));
        assert_eq!(
            tool.limits.rate.map(|r| r.to_string()).as_deref(),
            Some("10 per minute")
        );
        let errors = ToolMetadata::from_toml_str(
            "t",
            "description = \"d\"\n[limits]\ntimeout = \"soon\"\nconcurrency = 0\nrate = \"lots\"\nburst = 1\n",
        )
        .expect_err("bad limits");
        let found: Vec<(&str, Option<usize>)> = errors
            .iter()
            .map(|d| (d.rule().code(), d.line_column().map(|(l, _)| l)))
            .collect();
        assert_eq!(
            found,
            [
                ("bad-limit", Some(3)),
                ("bad-limit", Some(4)),
                ("bad-limit", Some(5)),
                ("unknown-key", Some(6)),
            ]
        );
    }
}
