//! The loopback credential gateway: each Session's HTTP MCP servers, seen by its harness.
//!
//! Bearers never enter a harness's environment, argv, config files or logs. So the harness is
//! given the gateway's URL for each server (`http://127.0.0.1:<port>/<secret>/<index>`, bound
//! to loopback, the path secret random per Session so no other local client can borrow a
//! bearer), and the gateway forwards each streamable-HTTP exchange unchanged to the declared
//! `server_url` (HTTP or HTTPS, see [`upstream_client`]): the method, the body, the query and
//! every end-to-end header, after it sets the declared headers and, for a server with a Vault
//! credential, `Authorization: Bearer …`.
//! The response comes back as it arrives (an SSE stream stays a stream). An anonymous server
//! gets the harness's own `Authorization` unchanged (Claude Code's blank one included).

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use serde_json::Map;
use switchboard_protocol::{McpServer, SessionConfiguration};
use tokio::task::JoinHandle;

/// The largest request body forwarded (MCP requests are JSON-RPC messages).
const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    #[error("the MCP credential gateway could not listen on loopback: {0}")]
    Listen(#[from] std::io::Error),
    #[error("MCP server {label}: {reason}")]
    Server { label: String, reason: String },
}

/// One Session's gateway; dropping it stops serving.
#[derive(Debug)]
pub struct McpGateway {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Drop for McpGateway {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl McpGateway {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves `config`'s MCP servers and returns the configuration the adapter gets: each
    /// server's URL is the gateway's, with no bearer and no headers (the gateway adds them).
    /// `None` when the Session has no MCP server.
    pub async fn start(
        config: SessionConfiguration,
    ) -> Result<(SessionConfiguration, Option<McpGateway>), GatewayError> {
        if config.mcp_servers.is_empty() {
            return Ok((config, None));
        }
        let upstreams = config
            .mcp_servers
            .iter()
            .map(Upstream::new)
            .collect::<Result<Vec<_>, _>>()?;
        let secret = path_secret();
        let client = upstream_client()?;
        let state = Arc::new(Shared {
            secret: secret.clone(),
            upstreams,
            client,
        });
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let app = Router::new()
            .route("/{secret}/{index}", any(forward))
            .with_state(state);
        let task = tokio::spawn(async move {
            if let Err(error) = axum::serve(listener, app).await {
                tracing::warn!(%error, "the MCP credential gateway stopped");
            }
        });
        let mut config = config;
        for (index, server) in config.mcp_servers.iter_mut().enumerate() {
            server.server_url = format!("http://{addr}/{secret}/{index}");
            server.headers = Map::new();
            server.bearer = None;
        }
        Ok((config, Some(McpGateway { addr, task })))
    }
}

/// The client the gateway forwards with. HTTPS servers are verified against the system's trust
/// store (rustls-platform-verifier; on Linux rustls-native-certs, so `SSL_CERT_FILE` and
/// `SSL_CERT_DIR` name a private CA). A machine with no CA certificate at all still reaches
/// `http://` servers: the client then trusts no one, and every HTTPS server fails verification.
fn upstream_client() -> Result<reqwest::Client, GatewayError> {
    let builder = || {
        reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
    };
    builder()
        .build()
        .or_else(|error| {
            tracing::warn!(%error, "no CA certificate could be loaded: HTTPS MCP servers will fail");
            builder().tls_certs_only([]).build()
        })
        .map_err(|e| GatewayError::Listen(std::io::Error::other(e)))
}

struct Shared {
    secret: String,
    upstreams: Vec<Upstream>,
    client: reqwest::Client,
}

/// Where one server's requests go and what the gateway adds to them.
struct Upstream {
    url: reqwest::Url,
    /// The declared headers, then `Authorization` when the server has a bearer.
    added: HeaderMap,
}

impl Upstream {
    fn new(server: &McpServer) -> Result<Self, GatewayError> {
        let invalid = |reason: String| GatewayError::Server {
            label: server.server_label.clone(),
            reason,
        };
        let url = reqwest::Url::parse(&server.server_url)
            .map_err(|e| invalid(format!("server_url is not a URL: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            // Fails here, before any harness starts, rather than as a native connection error.
            return Err(invalid(format!(
                "the {} scheme is not supported by this Runtime's gateway",
                url.scheme()
            )));
        }
        let mut added = HeaderMap::new();
        for (name, value) in &server.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| invalid("a header name is not valid HTTP".into()))?;
            let value = value
                .as_str()
                .and_then(|v| HeaderValue::from_str(v).ok())
                .ok_or_else(|| invalid(format!("the value of header {name} is not valid HTTP")))?;
            added.append(name, value);
        }
        if let Some(bearer) = &server.bearer {
            let mut value = HeaderValue::from_str(&format!("Bearer {bearer}"))
                .map_err(|_| invalid("the bearer is not a valid header value".into()))?;
            value.set_sensitive(true);
            added.insert(header::AUTHORIZATION, value);
        }
        Ok(Upstream { url, added })
    }
}

/// Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1), plus `host`
/// and `content-length`, which the outgoing request sets for itself.
fn hop_by_hop(name: &HeaderName) -> bool {
    matches!(
        name.as_str(),
        "connection"
            | "keep-alive"
            | "proxy-connection"
            | "proxy-authenticate"
            | "proxy-authorization"
            | "te"
            | "trailer"
            | "transfer-encoding"
            | "upgrade"
            | "host"
            | "content-length"
    )
}

async fn forward(
    State(shared): State<Arc<Shared>>,
    Path((secret, index)): Path<(String, usize)>,
    request: Request,
) -> Response {
    if secret != shared.secret {
        return StatusCode::NOT_FOUND.into_response();
    }
    let Some(upstream) = shared.upstreams.get(index) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let (parts, body) = request.into_parts();
    let Ok(body) = to_bytes(body, MAX_REQUEST_BYTES).await else {
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    let mut url = upstream.url.clone();
    if let Some(query) = parts.uri.query() {
        url.set_query(Some(query));
    }
    let mut headers = HeaderMap::new();
    for (name, value) in &parts.headers {
        if !hop_by_hop(name) {
            headers.append(name.clone(), value.clone());
        }
    }
    for name in upstream.added.keys() {
        headers.remove(name);
    }
    for (name, value) in &upstream.added {
        headers.append(name.clone(), value.clone());
    }
    let sent = shared
        .client
        .request(parts.method, url)
        .headers(headers)
        .body(body)
        .send()
        .await;
    let upstream_response = match sent {
        Ok(response) => response,
        Err(error) => {
            // The error names the server's URL, never a header: no bearer reaches the log.
            tracing::info!(index, error = %error.without_url(), "an MCP server could not be reached");
            return StatusCode::BAD_GATEWAY.into_response();
        }
    };
    let mut response = Response::builder().status(upstream_response.status());
    if let Some(out) = response.headers_mut() {
        for (name, value) in upstream_response.headers() {
            if !hop_by_hop(name) {
                out.append(name.clone(), value.clone());
            }
        }
    }
    response
        .body(Body::from_stream(upstream_response.bytes_stream()))
        .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
}

/// 32 random bytes as hex: the path segment that makes a gateway URL unguessable.
fn path_secret() -> String {
    use std::fmt::Write;
    let bytes: [u8; 32] = rand::random();
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// A Session's executor and the gateway its harness reaches MCP servers through: the gateway
/// lives exactly as long as the executor (released, it stops).
pub struct WithGateway {
    pub executor: Box<dyn switchboard_protocol::SessionExecutor>,
    pub gateway: McpGateway,
}

#[async_trait::async_trait]
impl switchboard_protocol::SessionExecutor for WithGateway {
    async fn start_turn(
        &self,
        turn: switchboard_protocol::TurnRequest,
    ) -> Result<switchboard_protocol::TurnHandle, switchboard_protocol::AdapterError> {
        self.executor.start_turn(turn).await
    }

    async fn evict(&self) -> Result<(), switchboard_protocol::AdapterError> {
        self.executor.evict().await
    }

    async fn release(
        &self,
        may_start_process: bool,
    ) -> Result<(), switchboard_protocol::AdapterError> {
        self.executor.release(may_start_process).await
    }

    fn is_resident(&self) -> bool {
        self.executor.is_resident()
    }

    fn native_session_id(&self) -> Option<String> {
        self.executor.native_session_id()
    }

    fn release_starts_process(&self) -> bool {
        self.executor.release_starts_process()
    }

    fn shared_process(&self) -> Option<u32> {
        self.executor.shared_process()
    }
}
