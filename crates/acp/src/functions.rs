//! The Session's public functions as the MCP server `functions`, hosted on loopback.
//!
//! An ACP agent has no function tools of its own, so each Session's executor serves its
//! functions as a streamable-HTTP MCP server (`rmcp`) on `127.0.0.1`, guarded by a bearer token
//! of its own, and passes it in `session/new`'s `mcpServers`. In a managed sandbox without
//! network the host's loopback is out of reach, so the server listens on the placement's
//! loopback bridge instead (a Unix socket the sandbox's relay carries a port of its own
//! loopback to), and the agent gets that port's URL. A `tools/call` becomes an
//! [`McpCall`] on the running Turn's inbound channel, ordered with the agent's own updates, and
//! waits there for the caller's result ([`crate::turn`]); that result answers the MCP request.
//! When the Turn ends first (cancel, a failure) the wait is dropped and the call gets an error
//! text: the agent itself neither times out nor cancels calls to a server from `session/new`
//! (resume-and-acp §3), so the server must not leave one hanging.

use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use switchboard_protocol::{FunctionToolSpec, LoopbackBridge};
use tokio::sync::oneshot;

use crate::rpc::{Connection, Inbound};

/// The server's label, fixed: the declaration reserves it when the Agent has functions.
pub const SERVER_LABEL: &str = "functions";

/// What the text of a call the Turn gave up on says to the agent.
pub const ABANDONED_TEXT: &str =
    "The function call was abandoned: the Turn ended without a result.";

/// One `tools/call` waiting for the caller's result.
#[derive(Debug)]
pub struct McpCall {
    pub tool: String,
    /// The call's arguments object, as the agent sent it.
    pub arguments: Value,
    pub reply: oneshot::Sender<CallAnswer>,
}

/// The MCP result of a call: its content blocks, and whether it is an error.
#[derive(Debug, Clone, PartialEq)]
pub struct CallAnswer {
    pub content: Vec<Value>,
    pub is_error: bool,
}

/// Where calls go: the connection of the Session's current agent process.
#[derive(Default)]
pub struct CallRoute(Mutex<Option<Arc<Connection>>>);

impl CallRoute {
    pub fn set(&self, connection: Arc<Connection>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(connection);
    }

    fn connection(&self) -> Option<Arc<Connection>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[derive(Clone)]
struct FunctionsServer {
    tools: Arc<Value>,
    route: Arc<CallRoute>,
}

impl ServerHandler for FunctionsServer {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        serde_json::from_value(json!({"tools": self.tools.as_ref()}))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (reply, answer) = oneshot::channel();
        let call = McpCall {
            tool: request.name.to_string(),
            arguments: Value::Object(request.arguments.unwrap_or_default()),
            reply,
        };
        match self.route.connection() {
            Some(connection) => connection.push(Inbound::FunctionCall(call)),
            None => drop(call),
        }
        let answer = answer.await.unwrap_or_else(|_| CallAnswer {
            content: vec![json!({"type": "text", "text": ABANDONED_TEXT})],
            is_error: true,
        });
        let result: CallToolResult = serde_json::from_value(json!({
            "content": answer.content,
            "isError": answer.is_error,
        }))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(result.into())
    }
}

/// The `tools/list` entries of the Session's functions.
pub fn tool_list(functions: &[FunctionToolSpec]) -> Value {
    functions
        .iter()
        .map(|f| json!({"name": f.name, "description": f.description, "inputSchema": f.parameters}))
        .collect()
}

/// A running `functions` server; it stops when dropped.
pub struct FunctionsHost {
    pub url: String,
    pub token: String,
    _stop: oneshot::Sender<()>,
}

impl FunctionsHost {
    /// Serves `functions` on a fresh loopback port, or on `bridge`'s socket, routing calls
    /// through `route`.
    pub async fn start(
        functions: &[FunctionToolSpec],
        route: Arc<CallRoute>,
        bridge: Option<&LoopbackBridge>,
    ) -> std::io::Result<FunctionsHost> {
        let server = FunctionsServer {
            tools: Arc::new(tool_list(functions)),
            route,
        };
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let token = hex::encode(rand::random::<[u8; 24]>());
        let router = axum::Router::new().nest_service("/mcp", service).layer(
            middleware::from_fn_with_state(Arc::new(format!("Bearer {token}")), require_bearer),
        );
        let (stop, stopped) = oneshot::channel::<()>();
        let stopped = async {
            let _ = stopped.await;
        };
        let url = match bridge {
            Some(bridge) => {
                let _ = std::fs::remove_file(&bridge.socket);
                let listener = switchboard_adapter_kit::unix_socket::bind(&bridge.socket)?;
                tokio::spawn(async move {
                    let _ = axum::serve(listener, router)
                        .with_graceful_shutdown(stopped)
                        .await;
                });
                format!("http://{}/mcp", bridge.inside)
            }
            None => {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                let url = format!("http://{}/mcp", listener.local_addr()?);
                tokio::spawn(async move {
                    let _ = axum::serve(listener, router)
                        .with_graceful_shutdown(stopped)
                        .await;
                });
                url
            }
        };
        Ok(FunctionsHost {
            url,
            token,
            _stop: stop,
        })
    }

    /// The server as an entry of `session/new`'s `mcpServers`.
    pub fn acp_entry(&self) -> Value {
        json!({
            "type": "http",
            "name": SERVER_LABEL,
            "url": self.url,
            "headers": [{"name": "Authorization", "value": format!("Bearer {}", self.token)}],
        })
    }
}

/// Only the agent that was given the token may call the Session's functions.
async fn require_bearer(
    State(expected): State<Arc<String>>,
    request: Request,
    next: Next,
) -> Result<Response, StatusCode> {
    let given = request
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if given == Some(expected.as_str()) {
        Ok(next.run(request).await)
    } else {
        Err(StatusCode::UNAUTHORIZED)
    }
}
