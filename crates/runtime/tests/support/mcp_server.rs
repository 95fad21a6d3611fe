//! A real MCP server over streamable HTTP (MCP 2025-06-18 transport) for the tests: three tools,
//! `tools/call` answered as an SSE stream (so the gateway's streaming is exercised), everything
//! else as JSON, and every request's method and headers recorded.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    #[allow(dead_code)] // shown in a failed assertion's Debug output
    pub http_method: String,
    /// The JSON-RPC method (empty for GET/DELETE).
    pub rpc_method: String,
    pub headers: HeaderMap,
    pub body: Value,
}

pub struct McpServer {
    pub addr: SocketAddr,
    /// `http`, or `https` for a server on TLS.
    scheme: &'static str,
    log: Arc<Mutex<Vec<Recorded>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for McpServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The tools every server lists.
pub const TOOLS: [&str; 3] = ["get_weather", "get_time", "get_news"];

impl McpServer {
    pub async fn start() -> McpServer {
        Self::start_on("127.0.0.1:0".parse().unwrap()).await
    }

    /// A server on `addr` (a restart of a stopped server keeps its URL).
    pub async fn start_on(addr: SocketAddr) -> McpServer {
        let log = Arc::new(Mutex::new(Vec::new()));
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = app(log.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        McpServer {
            addr,
            scheme: "http",
            log,
            task,
        }
    }

    /// The same server over TLS with `tls`'s certificate (for `localhost`).
    pub async fn start_https(tls: Arc<tokio_rustls::rustls::ServerConfig>) -> McpServer {
        let log = Arc::new(Mutex::new(Vec::new()));
        let listener = super::tls::TlsListener::bind("127.0.0.1:0".parse().unwrap(), tls).await;
        let addr = axum::serve::Listener::local_addr(&listener).unwrap();
        let app = app(log.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        McpServer {
            addr,
            scheme: "https",
            log,
            task,
        }
    }

    pub fn url(&self) -> String {
        match self.scheme {
            // The certificate names `localhost`, as a real server's names its host.
            "https" => format!("https://localhost:{}/mcp", self.addr.port()),
            _ => format!("http://{}/mcp", self.addr),
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().unwrap().clone()
    }

    /// The `tools/call` requests received.
    pub fn calls(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.rpc_method == "tools/call")
            .collect()
    }
}

fn app(log: Arc<Mutex<Vec<Recorded>>>) -> Router {
    Router::new()
        .route("/mcp", post(rpc).get(other).delete(other))
        .with_state(log)
}

async fn other(
    State(log): State<Arc<Mutex<Vec<Recorded>>>>,
    method: axum::http::Method,
    headers: HeaderMap,
) -> Response {
    log.lock().unwrap().push(Recorded {
        http_method: method.to_string(),
        rpc_method: String::new(),
        headers,
        body: Value::Null,
    });
    if method == axum::http::Method::DELETE {
        StatusCode::OK.into_response()
    } else {
        StatusCode::METHOD_NOT_ALLOWED.into_response()
    }
}

async fn rpc(
    State(log): State<Arc<Mutex<Vec<Recorded>>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let method = message["method"].as_str().unwrap_or_default().to_owned();
    log.lock().unwrap().push(Recorded {
        http_method: "POST".into(),
        rpc_method: method.clone(),
        headers,
        body: message.clone(),
    });
    let Some(id) = message.get("id").cloned() else {
        return StatusCode::ACCEPTED.into_response();
    };
    let result = match method.as_str() {
        "initialize" => json!({
            "protocolVersion": message["params"]["protocolVersion"].as_str().unwrap_or("2025-06-18"),
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "switchboard-test-mcp", "version": "1.0.0"},
        }),
        "tools/list" => json!({"tools": TOOLS.iter().map(|name| json!({
            "name": name,
            "description": format!("Test tool {name}"),
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
                "required": ["city"]},
        })).collect::<Vec<_>>()}),
        "tools/call" => {
            let name = message["params"]["name"].as_str().unwrap_or_default();
            let city = message["params"]["arguments"]["city"]
                .as_str()
                .unwrap_or("?");
            let reply = json!({"jsonrpc": "2.0", "id": id, "result": {
                "content": [{"type": "text", "text": format!("{name} in {city}: sunny 21C")}],
                "isError": false,
            }});
            return (
                [
                    (header::CONTENT_TYPE, "text/event-stream"),
                    (header::CACHE_CONTROL, "no-cache"),
                ],
                format!("event: message\ndata: {reply}\n\n"),
            )
                .into_response();
        }
        "ping" => json!({}),
        _ => {
            return axum::Json(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "method not found"}}))
            .into_response();
        }
    };
    (
        [("mcp-session-id", "mcp-test-session")],
        axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})),
    )
        .into_response()
}
