//! Issue 13, item 5: a request rejected before its body was read (401, `invalid_beta`) leaves
//! its kept-alive connection usable for the next request; a body too big to drain gets
//! `Connection: close` instead of a silent close.

use crate::support;

use support::{API_KEY, read_response, read_to_close, scratch, start_limited};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

fn post(headers: &str, body: &str) -> String {
    format!(
        "POST /v1/agents HTTP/1.1\r\nHost: x\r\n{headers}Content-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn a_kept_alive_connection_survives_early_rejections() {
    let dir = scratch("early-reject-");
    let (_serve, addr) = start_limited(dir.path(), 64, &["--no-local-runtime"]).await;
    let body = r#"{"name":"a","model":"gpt-test","instructions":"x"}"#;
    let rejected = [
        (
            post(
                "OpenAI-Beta: agents=v1\r\nAuthorization: Bearer sk-sb-wrong\r\n",
                body,
            ),
            "HTTP/1.1 401",
        ),
        (post("OpenAI-Beta: agents=v1\r\n", body), "HTTP/1.1 401"),
        (
            post(&format!("Authorization: Bearer {API_KEY}\r\n"), body),
            "HTTP/1.1 400",
        ),
    ];
    let mut tcp = TcpStream::connect(&addr).await.unwrap();
    for round in 0..150 {
        let (request, status) = &rejected[round % rejected.len()];
        tcp.write_all(request.as_bytes()).await.unwrap();
        let answer = read_response(&mut tcp).await;
        assert!(answer.starts_with(status), "round {round}: {answer}");
        assert!(
            !answer.to_lowercase().contains("connection: close"),
            "{answer}"
        );
        // The next request on the same connection is answered.
        tcp.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let next = read_response(&mut tcp).await;
        assert!(next.starts_with("HTTP/1.1 200"), "round {round}: {next}");
    }
}

#[tokio::test]
async fn a_rejected_body_too_big_to_drain_closes_the_connection_saying_so() {
    let dir = scratch("early-reject-big-");
    let (_serve, addr) = start_limited(dir.path(), 64, &["--no-local-runtime"]).await;
    let body = format!(r#"{{"name":"{}"}}"#, "a".repeat(200 * 1024));
    let mut tcp = TcpStream::connect(&addr).await.unwrap();
    let request = post("OpenAI-Beta: agents=v1\r\n", &body);
    // The server may close before reading it all: a failed write is fine, the answer is not.
    let _ = tcp.write_all(request.as_bytes()).await;
    let answer = read_to_close(&mut tcp).await;
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(
        answer.to_lowercase().contains("connection: close"),
        "{answer}"
    );
}
