//! Sending `elicitation/create` by hand (gap 6 of `server::compat`).

use rmcp::RoleServer;

/// Gap 6: sends `elicitation/create` and waits at most `timeout`, as rmcp's
/// `Peer::create_elicitation_with_timeout` does, without rmcp's
/// `elicitation` feature, which compiles `url` and the ICU crates into every
/// server for URL elicitation, which nothing here uses. Remove when that
/// feature no longer brings them to a server that only asks forms.
pub(super) async fn elicit(
    peer: &rmcp::service::Peer<RoleServer>,
    params: rmcp::model::ElicitRequestParams,
    timeout: std::time::Duration,
) -> Result<rmcp::model::ElicitResult, rmcp::service::ServiceError> {
    let request =
        rmcp::model::ServerRequest::ElicitRequest(rmcp::model::ElicitRequest::new(params));
    match peer
        .send_request_with_option(
            request,
            rmcp::service::PeerRequestOptions::with_timeout(timeout),
        )
        .await?
        .await_response()
        .await?
    {
        rmcp::model::ClientResult::ElicitResult(result) => Ok(result),
        _ => Err(rmcp::service::ServiceError::UnexpectedResponse),
    }
}
