//! The credential gateway on its own: what a harness-side client sees of a real MCP server
//! through it, and what it refuses.

use crate::support;

use serde_json::{Map, Value, json};
use support::mcp::server;
use support::mcp_server::McpServer as TestServer;
use switchboard_protocol::SessionConfiguration;
use switchboard_runtime::mcp_gateway::McpGateway;

fn config(servers: Vec<switchboard_protocol::McpServer>) -> SessionConfiguration {
    let mut config = support::configuration("http://127.0.0.1:9", vec![]);
    config.mcp_servers = servers;
    config
}

async fn post(url: &str, body: Value, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    request.body(body.to_string()).send().await.unwrap()
}

#[tokio::test]
async fn the_gateway_adds_bearer_and_headers_and_streams_the_reply_unchanged() {
    let mcp = TestServer::start().await;
    let mut lab = server("lab", &mcp.url(), None);
    lab.bearer = Some("tok-gw-1".into());
    lab.headers = Map::from_iter([("X-Team".to_owned(), json!("support"))]);
    let (rewritten, gateway) = McpGateway::start(config(vec![lab])).await.unwrap();
    let gateway = gateway.unwrap();
    let [seen] = rewritten.mcp_servers.as_slice() else {
        panic!()
    };
    // The adapter's copy: the gateway's loopback URL, nothing secret, no header.
    assert!(
        seen.server_url
            .starts_with(&format!("http://{}/", gateway.addr()))
    );
    assert_eq!((seen.bearer.as_deref(), seen.headers.len()), (None, 0));
    assert!(!format!("{rewritten:?}").contains("tok-gw-1"));

    // The harness's own Authorization is replaced; other headers pass; the SSE body streams back.
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "get_time", "arguments": {"city": "Oslo"}}});
    let reply = post(
        &seen.server_url,
        call.clone(),
        &[("authorization", ""), ("mcp-session-id", "s1")],
    )
    .await;
    assert_eq!(reply.status(), 200);
    assert_eq!(reply.headers()["content-type"], "text/event-stream");
    let text = reply.text().await.unwrap();
    assert!(text.starts_with("event: message\ndata: "), "{text}");
    assert!(text.contains("get_time in Oslo: sunny 21C"), "{text}");
    let [request] = mcp.requests().try_into().unwrap();
    assert_eq!(request.headers["authorization"], "Bearer tok-gw-1");
    assert_eq!(request.headers["x-team"], "support");
    assert_eq!(request.headers["mcp-session-id"], "s1");
    assert_eq!(request.body, call);
}

#[tokio::test]
async fn the_gateway_forwards_an_anonymous_request_unchanged_and_refuses_other_paths() {
    let mcp = TestServer::start().await;
    let (rewritten, gateway) = McpGateway::start(config(vec![server("lab", &mcp.url(), None)]))
        .await
        .unwrap();
    let url = rewritten.mcp_servers[0].server_url.clone();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
    let reply = post(&url, init.clone(), &[("authorization", "")]).await;
    assert_eq!(reply.status(), 200);
    assert_eq!(reply.headers()["mcp-session-id"], "mcp-test-session");
    assert_eq!(mcp.requests()[0].headers["authorization"], "");

    // Without the path secret, or for a server index that does not exist: 404, nothing sent.
    let gateway = gateway.unwrap();
    let addr = gateway.addr();
    for wrong in [
        format!("http://{addr}/nope/0"),
        format!("{}9", &url[..url.len() - 1]),
    ] {
        assert_eq!(
            post(&wrong, init.clone(), &[]).await.status(),
            404,
            "{wrong}"
        );
    }
    assert_eq!(mcp.requests().len(), 1);
}

#[tokio::test]
async fn a_server_that_is_not_http_fails_the_preparation_before_any_harness_starts() {
    let error = McpGateway::start(config(vec![server(
        "lab",
        "ftp://mcp.example.com/mcp",
        None,
    )]))
    .await
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "MCP server lab: the ftp scheme is not supported by this Runtime's gateway"
    );
}
