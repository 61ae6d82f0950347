//! A prompt served: its handler run, asking as a tool's may.

#[cfg(feature = "ask")]
use crate::server::asker::Asker;
#[cfg(feature = "ask")]
use crate::server::attempt::Attempt;
use rmcp::ErrorData;
use rmcp::model::{GetPromptRequestParams, GetPromptResponse};
use rmcp::service::{RequestContext, RoleServer};

impl crate::server::Server {
    /// `prompts/get`, in its span.
    pub(in crate::server) async fn serve_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let Some(served) = self
            .inner
            .prompts
            .iter()
            .find(|p| p.prompt.name == request.name)
        else {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt `{}`",
                    toolmetadata_core::seam::shorten(&request.name, 100)
                ),
                None,
            ));
        };
        let args = request.arguments.clone().unwrap_or_default();
        let missing: Vec<&str> = served
            .prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !args.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(ErrorData::invalid_params(
                format!(
                    "prompt `{}`: missing required argument{} {}",
                    served.prompt.name,
                    if missing.len() == 1 { "" } else { "s" },
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None,
            ));
        }
        // A prompt's handler may ask the client too (`Context::ask`,
        // `sample`, `roots`): on 2026-07-28 the questions go out in an
        // `InputRequiredResult`, as a tool's do.
        #[cfg(feature = "ask")]
        let asker = Asker::for_request(
            &Attempt::of_prompt(&request),
            &context,
            &self.inner.ask,
            self.inner.stores.replay.as_ref(),
        )
        .await?;
        #[cfg(feature = "ask")]
        let cx = self.asking_context(&served.prompt.name, context, asker.clone());
        #[cfg(not(feature = "ask"))]
        let cx = self.plain_context(&served.prompt.name, context);
        let answered = (served.handler)(args, cx).await;
        #[cfg(feature = "ask")]
        if let Some(input) = asker.input_required(&self.inner.ask)? {
            return Ok(input.into());
        }
        match answered {
            Ok(result) => Ok(result.into()),
            Err(e) => Err(ErrorData::invalid_params(
                format!("prompt `{}`: {}", served.prompt.name, e.message()),
                None,
            )),
        }
    }
}
