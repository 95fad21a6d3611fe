//! Issue 13, item 1: slow and idle clients cannot take `serve` down. Raw TCP against the built
//! binary with short limits; every wait is an observed event (a response, an EOF) bounded by
//! [`support::WAIT`].

use crate::support;

use std::time::Duration;

use support::{
    API_KEY, Mock, open_events, read_response, read_to_close, read_until, scratch,
    start_limited as start, start_limited_on,
};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

const HEALTHZ: &[u8] = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";

#[tokio::test]
async fn half_sent_requests_are_closed_and_readyz_still_answers() {
    let dir = scratch("slowloris-");
    let (_serve, addr) = start(dir.path(), 256, &["--no-local-runtime"]).await;
    let mut loris = Vec::new();
    for _ in 0..100 {
        let mut tcp = TcpStream::connect(&addr).await.unwrap();
        tcp.write_all(b"GET /readyz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            .await
            .unwrap();
        loris.push(tcp);
    }
    // Meanwhile a full request is answered (503: no Runtime, but an answer).
    let mut probe = TcpStream::connect(&addr).await.unwrap();
    probe
        .write_all(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let answer = read_to_close(&mut probe).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    // Every half-sent request is closed without an answer to it.
    let started = std::time::Instant::now();
    for tcp in &mut loris {
        let rest = read_to_close(tcp).await;
        assert!(!rest.contains("\"harnesses\""), "{rest}");
    }
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[tokio::test]
async fn the_connection_bound_holds_and_idle_keep_alives_close() {
    let dir = scratch("bound-");
    let (_serve, addr) = start(dir.path(), 4, &["--no-local-runtime"]).await;
    // Four kept-alive connections, each served once: they hold all four slots.
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut tcp = TcpStream::connect(&addr).await.unwrap();
        tcp.write_all(HEALTHZ).await.unwrap();
        assert!(read_response(&mut tcp).await.starts_with("HTTP/1.1 200"));
        held.push(tcp);
    }
    // A fifth is answered only once an idle one was closed by the server.
    let mut fifth = TcpStream::connect(&addr).await.unwrap();
    fifth.write_all(HEALTHZ).await.unwrap();
    assert!(read_response(&mut fifth).await.starts_with("HTTP/1.1 200"));
    let mut closed = 0;
    for tcp in &held {
        let mut byte = [0u8; 1];
        if matches!(tcp.try_read(&mut byte), Ok(0)) {
            closed += 1;
        }
    }
    assert!(
        closed >= 1,
        "the fifth connection was served while four were open"
    );
    // Every idle keep-alive is closed.
    for tcp in &mut held {
        assert_eq!(read_to_close(tcp).await, "");
    }
    assert_eq!(read_to_close(&mut fifth).await, "");
}

#[tokio::test]
async fn a_stalled_body_is_answered_408_and_closed() {
    let dir = scratch("stalled-");
    let (_serve, addr) = start(dir.path(), 64, &["--no-local-runtime"]).await;
    for length in ["100", "100000000000"] {
        let mut tcp = TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "POST /v1/agents HTTP/1.1\r\nHost: x\r\nOpenAI-Beta: agents=v1\r\n\
             Authorization: Bearer {API_KEY}\r\nContent-Type: application/json\r\n\
             Content-Length: {length}\r\n\r\n{{\"name\":"
        );
        tcp.write_all(head.as_bytes()).await.unwrap();
        let answer = read_to_close(&mut tcp).await;
        assert!(answer.starts_with("HTTP/1.1 408"), "{length}: {answer}");
        assert!(answer.contains("\"code\":\"request_timeout\""), "{answer}");
        assert!(
            answer.to_lowercase().contains("connection: close"),
            "{answer}"
        );
    }
}

#[tokio::test]
async fn an_sse_stream_outlives_the_idle_timeout() {
    if !support::codex_installed("an_sse_stream_outlives_the_idle_timeout") {
        return;
    }
    let dir = scratch("sse-idle-");
    let mock = Mock::start(dir.path(), None).await;
    let data = dir.path().join("data");
    let core = start_limited_on(&data, &mock, &[]).await;
    let addr = core.addr();
    let id = core.create_session().await;
    core.wait_session(&id, "idle").await;
    let mut sse = open_events(&addr, &id, API_KEY).await;
    // An idle keep-alive opened now is closed after the 1 s limit...
    let mut idle = TcpStream::connect(&addr).await.unwrap();
    idle.write_all(HEALTHZ).await.unwrap();
    assert!(read_response(&mut idle).await.starts_with("HTTP/1.1 200"));
    assert_eq!(read_to_close(&mut idle).await, "");
    // ...while the stream, opened before it, still delivers: the next Turn's events arrive.
    let (status, body) = core.post_message(&id, "again").await;
    assert_eq!(status, 202, "{body}");
    let seen = read_until(&mut sse, "agent.session.idle").await;
    assert!(seen.contains("data: "), "{seen}");
}

#[tokio::test]
async fn the_idle_keep_alive_limit_is_its_own_and_spares_a_live_stream() {
    if !support::codex_installed("the_idle_keep_alive_limit_is_its_own_and_spares_a_live_stream") {
        return;
    }
    let dir = scratch("keep-alive-");
    let mock = Mock::start(dir.path(), None).await;
    let data = dir.path().join("data");
    // Headers within 1 s, idle kept-alive connections for 6 s.
    let core = start_limited_on(&data, &mock, &["--keep-alive-timeout", "6"]).await;
    let addr = core.addr();
    let id = core.create_session().await;
    core.wait_session(&id, "idle").await;
    let mut sse = open_events(&addr, &id, API_KEY).await;

    // An idle kept-alive connection outlives the header limit and is closed at its own.
    let mut idle = TcpStream::connect(&addr).await.unwrap();
    idle.write_all(HEALTHZ).await.unwrap();
    assert!(read_response(&mut idle).await.starts_with("HTTP/1.1 200"));
    let served = std::time::Instant::now();
    // A second kept-alive connection starts its next request and stalls in the head: the
    // header limit applies from its first byte.
    let mut stalled = TcpStream::connect(&addr).await.unwrap();
    stalled.write_all(HEALTHZ).await.unwrap();
    assert!(
        read_response(&mut stalled)
            .await
            .starts_with("HTTP/1.1 200")
    );
    stalled
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let began = std::time::Instant::now();
    assert_eq!(read_to_close(&mut stalled).await, "");
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "a stalled head waited {:?}",
        began.elapsed()
    );
    assert_eq!(read_to_close(&mut idle).await, "");
    let idled = served.elapsed();
    assert!(
        idled >= Duration::from_millis(5500),
        "closed after {idled:?}, before the keep-alive limit"
    );

    // The stream, open all along, still delivers: the next Turn's events arrive.
    let (status, body) = core.post_message(&id, "again").await;
    assert_eq!(status, 202, "{body}");
    let seen = read_until(&mut sse, "agent.session.idle").await;
    assert!(seen.contains("data: "), "{seen}");
}
