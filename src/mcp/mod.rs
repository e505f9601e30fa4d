//! `sleuth mcp`: sleuth as an MCP server on stdio (the official SDK,
//! `rmcp`). Sessions run through the session service's jobs
//! (`research::Jobs`), as `sleuth serve`'s do, so they land in the same
//! store. It answers `initialize` at once: the corpus is indexed on the
//! first call that needs it, with progress notifications. Only protocol
//! goes to stdout; logs go to the log file.

mod tools;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::research::Jobs;

/// The MCP server: tools and the session reports as resources.
#[derive(Clone)]
pub struct SleuthMcp {
    jobs: Arc<Jobs>,
}

impl SleuthMcp {
    pub fn new(jobs: Arc<Jobs>) -> Self {
        Self { jobs }
    }

    /// Serves on stdin/stdout until the client closes them.
    pub async fn serve_stdio(self) -> Result<(), String> {
        let running = self.serve(rmcp::transport::stdio()).await.map_err(|e| e.to_string())?;
        running.waiting().await.map_err(|e| e.to_string())?;
        Ok(())
    }
}

const REPORT_URI: (&str, &str) = ("sleuth://sessions/", "/report");

/// The session id of a `sleuth://sessions/{id}/report` URI.
fn report_id(uri: &str) -> Option<&str> {
    let id = uri.strip_prefix(REPORT_URI.0)?.strip_suffix(REPORT_URI.1)?;
    (!id.is_empty() && !id.contains(['/', '\\']) && !id.contains("..")).then_some(id)
}

impl ServerHandler for SleuthMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("sleuth", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "sleuth researches questions against its configured sources (a local document corpus and/or the web): \
                 it plans searches, reads sources, drafts, critiques and verifies every citation. Use `research` for a \
                 question that needs sources; `search` for raw hits; `get_report` to re-read a past answer.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            "research" => tools::research(&self.jobs, &args, &context).await?,
            "answer" => tools::answer(&self.jobs, &args, &context).await?,
            "search" => tools::search(&self.jobs, &args, &context).await?,
            "list_sessions" => tools::list_sessions(&self.jobs)?,
            "get_report" => tools::get_report(&self.jobs, &args)?,
            other => return Err(ErrorData::invalid_params(format!("no tool `{other}`"), None)),
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let sessions = self.jobs.sessions().list().map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let resources = sessions
            .into_iter()
            .filter(|s| s.status.has_report())
            .map(|s| {
                let question = s.summary.as_ref().map(|m| m.question.clone()).unwrap_or_default();
                Resource::new(format!("{}{}{}", REPORT_URI.0, s.id, REPORT_URI.1), format!("report {}", s.id))
                    .with_description(crate::text::sanitize_inline(&question))
                    .with_mime_type("text/markdown")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let template = ResourceTemplate::new("sleuth://sessions/{id}/report", "session report")
            .with_description("The Markdown report of a sleuth session")
            .with_mime_type("text/markdown");
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let id = report_id(&request.uri)
            .ok_or_else(|| ErrorData::resource_not_found(format!("no resource `{}`", request.uri), None))?;
        let text = tools::report_text(&self.jobs, id).map_err(|m| ErrorData::resource_not_found(m, None))?;
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, request.uri)]).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_uris_name_one_session() {
        assert_eq!(report_id("sleuth://sessions/20260101-000000-ab12/report"), Some("20260101-000000-ab12"));
        assert_eq!(report_id("sleuth://sessions//report"), None);
        assert_eq!(report_id("sleuth://sessions/../x/report"), None);
        assert_eq!(report_id("file:///etc/passwd"), None);
    }
}
