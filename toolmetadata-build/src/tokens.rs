//! Token budgets (feature `tokens`): what each tool's `tools/list` entry,
//! the whole list and each group's list cost a model's context on every
//! turn, counted with
//! OpenAI's o200k_base encoding (tiktoken-rs, which carries its data).
//! `toolmetadata check --quality` prints the counts against the author's
//! limits and fails past them.

use crate::Checked;

/// The encoding the counts are in.
pub const ENCODING: &str = "o200k_base";

/// How many tokens the text takes.
pub fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// The limits an author sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// At most this many tokens for one tool's entry.
    pub per_tool: usize,
    /// At most this many for the `tools/list` result of them all.
    pub catalog: usize,
}

impl Default for Budget {
    /// 1,000 a tool and 10,000 in all: a catalog past that costs a large
    /// share of a small model's context before the conversation starts.
    fn default() -> Self {
        Budget {
            per_tool: 1_000,
            catalog: 10_000,
        }
    }
}

/// The counts of a checked catalog: each tool that loaded, by name, the
/// `tools/list` result (`{"tools":[…]}`) of them all, and that of each
/// group (what a client of `<endpoint>/<group>` is sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    /// Each tool's entry, in the order of its files.
    pub tools: Vec<(String, usize)>,
    /// The list of them all.
    pub catalog: usize,
    /// Each group's list, by group name: its name, how many tools it has,
    /// its tokens (the entries as rendered, as the catalog's; what a client
    /// of `<endpoint>/<group>` is sent, discovery aside). A subset of the
    /// catalog, it is within the catalog's limit whenever the catalog is.
    pub groups: Vec<(String, usize, usize)>,
}

impl Counts {
    /// The counts of `checked`'s tools (those without errors).
    pub fn of(checked: &Checked) -> Counts {
        let tools: Vec<&toolmetadata_load::metadata::ToolMetadata> = checked
            .files()
            .iter()
            .filter(|f| checked.errors_of(f).is_empty())
            .filter_map(|f| checked.tool(f))
            .collect();
        let entries: Vec<String> = tools.iter().map(|t| t.to_tools_list_json()).collect();
        let list = |of: &mut dyn Iterator<Item = &String>| {
            let joined: Vec<&str> = of.map(String::as_str).collect();
            format!("{{\"tools\":[{}]}}", joined.join(","))
        };
        let mut members: std::collections::BTreeMap<&str, Vec<&String>> = Default::default();
        for (tool, entry) in tools.iter().zip(&entries) {
            for group in &tool.groups {
                members.entry(group).or_default().push(entry);
            }
        }
        Counts {
            tools: tools
                .iter()
                .zip(&entries)
                .map(|(tool, json)| (tool.name.clone(), count(json)))
                .collect(),
            catalog: count(&list(&mut entries.iter())),
            groups: members
                .into_iter()
                .map(|(group, of)| {
                    let n = of.len();
                    (group.to_owned(), n, count(&list(&mut of.into_iter())))
                })
                .collect(),
        }
    }

    /// What goes past `budget`, each said as a sentence.
    pub fn over(&self, budget: Budget) -> Vec<String> {
        let mut over: Vec<String> = self
            .tools
            .iter()
            .filter(|(_, n)| *n > budget.per_tool)
            .map(|(name, n)| {
                format!(
                    "`{name}` takes {n} tokens, more than the {} a tool may",
                    budget.per_tool
                )
            })
            .collect();
        if self.catalog > budget.catalog {
            over.push(format!(
                "the catalog takes {} tokens, more than the {} it may",
                self.catalog, budget.catalog
            ));
        }
        over
    }
}
