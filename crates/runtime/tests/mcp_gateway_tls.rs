//! An HTTPS MCP server behind the credential gateway: the server's certificate is signed by a
//! private CA made at test time, trusted the way a deployment trusts one (`SSL_CERT_FILE`, the
//! system trust store), and the gateway reaches it with the bearer; a server whose certificate
//! nobody trusts is never sent the bearer. It sets the process's environment, which holds
//! because nextest runs every test in its own process.

use crate::support;

use serde_json::{Value, json};
use support::mcp::server;
use support::mcp_server::McpServer as TestServer;
use support::tls::TestCa;
use switchboard_runtime::mcp_gateway::McpGateway;

async fn post(url: &str, body: &Value) -> reqwest::Response {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn an_https_server_signed_by_a_trusted_ca_gets_the_bearer() {
    let trusted = TestCa::new();
    trusted.trust_in_this_process();
    let mcp = TestServer::start_https(trusted.server.clone()).await;
    // Another CA's server: its certificate verifies against nothing this process trusts.
    let stranger = TestServer::start_https(TestCa::new().server).await;
    assert!(mcp.url().starts_with("https://localhost:"));

    let mut lab = server("lab", &mcp.url(), None);
    lab.bearer = Some("tok-tls-1".into());
    let mut other = server("other", &stranger.url(), None);
    other.bearer = Some("tok-tls-2".into());
    let mut config = support::configuration("http://127.0.0.1:9", vec![]);
    config.mcp_servers = vec![lab, other];
    let (rewritten, _gateway) = McpGateway::start(config).await.unwrap();
    // The harness still talks plain HTTP to the loopback gateway.
    let lab_url = &rewritten.mcp_servers[0].server_url;
    assert!(lab_url.starts_with("http://127.0.0.1:"), "{lab_url}");

    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "get_news", "arguments": {"city": "Rome"}}});
    let reply = post(lab_url, &call).await;
    assert_eq!(reply.status(), 200);
    assert!(
        reply
            .text()
            .await
            .unwrap()
            .contains("get_news in Rome: sunny 21C")
    );
    let [request] = mcp.requests().try_into().unwrap();
    assert_eq!(request.headers["authorization"], "Bearer tok-tls-1");
    assert_eq!(request.body, call);

    // The untrusted server: 502 to the harness, and the handshake failed before any request.
    let reply = post(&rewritten.mcp_servers[1].server_url, &call).await;
    assert_eq!(reply.status(), 502);
    assert!(stranger.requests().is_empty());
}
