//! The builder's completions: what each completes (a prompt's argument, a
//! template's variable) is served.

use std::future::Future;
use std::sync::Arc;

use super::ServerBuilder;
use crate::Context;
use crate::server::ServerError;
use crate::server::completions::{Completer, Completes, ServedCompletion};

impl ServerBuilder {
    pub(super) fn completion<F, Fut>(mut self, completes: Completes, completer: F) -> Self
    where
        F: Fn(String, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        let completer: Completer = Arc::new(move |typed, cx| Box::pin(completer(typed, cx)));
        self.completions.push(ServedCompletion {
            completes,
            completer,
        });
        self
    }
}

impl ServerBuilder {
    /// Each completion completes an argument or a variable that exists.
    pub(super) fn check_completions(&self) -> Result<(), ServerError> {
        for c in &self.completions {
            let found = match &c.completes {
                #[cfg(feature = "prompts")]
                Completes::Prompt { name, argument } => {
                    super::prompts::has_argument(&self.prompts, name, argument)
                }
                #[cfg(feature = "resources")]
                Completes::Template {
                    uri_template,
                    variable,
                } => super::resources::has_variable(&self.templates, uri_template, variable),
            };
            if !found {
                return Err(ServerError::build(format!(
                    "a completion completes {:?}, which the server does not serve",
                    c.completes
                )));
            }
        }
        Ok(())
    }
}
