//! A scripted OpenAI Responses provider on loopback, enough for codex (a copy of
//! `crates/codex/tests/support/fake_responses.rs`).
//!
//! Behaviour per request (stateless, driven by the request, like the lab's fake):
//! - [`Script::Hang`]: send the SSE headers, then nothing until the server is dropped.
//! - otherwise, if the input since the last user message holds a `function_call_output`, reply
//!   with text `FINAL: <that output>` (array outputs are joined text parts);
//! - else, if [`Script::Call`] names a function the request offers, call it once;
//! - else reply with the configured text (`text.format` requests get the JSON reply).

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(Clone, Debug)]
pub enum Script {
    /// Plain text reply.
    Text(String),
    /// Call `name` with `arguments` (exact JSON text) when offered, then answer with the output.
    Call { name: String, arguments: String },
    /// Never answer.
    Hang,
}

pub struct FakeResponses {
    addr: std::net::SocketAddr,
    journal: Arc<Mutex<Vec<Value>>>,
    arrived: Arc<tokio::sync::Notify>,
    task: tokio::task::JoinHandle<()>,
}

/// The reply to a request with `text.format` json_schema.
pub const JSON_REPLY: &str = r#"{"answer":"42","confidence":0.90}"#;

impl FakeResponses {
    pub async fn start(script: Script) -> FakeResponses {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let journal = Arc::new(Mutex::new(Vec::new()));
        let arrived = Arc::new(tokio::sync::Notify::new());
        let (j, a) = (journal.clone(), arrived.clone());
        let task = tokio::spawn(async move {
            let mut counter = 0u64;
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                counter += 1;
                tokio::spawn(serve(stream, script.clone(), j.clone(), a.clone(), counter));
            }
        });
        FakeResponses {
            addr,
            journal,
            arrived,
            task,
        }
    }

    /// Without `/v1`, like the mock model crate's `base_url()`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Waits (bounded by the caller) until at least `n` requests were journaled.
    pub async fn wait_for_requests(&self, n: usize) {
        loop {
            let notified = self.arrived.notified();
            if self.journal.lock().unwrap().len() >= n {
                return;
            }
            notified.await;
        }
    }

    /// Every request: `{method, path, headers, body}`.
    pub fn journal(&self) -> Vec<Value> {
        self.journal.lock().unwrap().clone()
    }
}

impl Drop for FakeResponses {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(
    mut stream: TcpStream,
    script: Script,
    journal: Arc<Mutex<Vec<Value>>>,
    arrived: Arc<tokio::sync::Notify>,
    n: u64,
) {
    let Some((method, path, headers, body)) = read_request(&mut stream).await else {
        return;
    };
    let parsed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    journal
        .lock()
        .unwrap()
        .push(json!({"method": method, "path": path, "headers": headers, "body": parsed.clone()}));
    arrived.notify_waiters();
    if method != "POST" || !path.ends_with("/responses") {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
        return;
    }
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
    if stream.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    if matches!(script, Script::Hang) {
        // Hold the stream open; the test cancels or the deadline fires.
        let mut sink = [0u8; 1];
        let _ = stream.read(&mut sink).await;
        std::future::pending::<()>().await;
    }
    let rid = format!("resp_{n}");
    let events = reply(&script, &parsed, &rid);
    for event in events {
        let frame = format!(
            "event: {}\ndata: {}\n\n",
            event["type"].as_str().unwrap(),
            event
        );
        if stream.write_all(frame.as_bytes()).await.is_err() {
            return;
        }
    }
    let _ = stream.shutdown().await;
}

fn reply(script: &Script, body: &Value, rid: &str) -> Vec<Value> {
    let input = body["input"].as_array().cloned().unwrap_or_default();
    let last_user = input
        .iter()
        .rposition(|i| i["type"] == "message" && i["role"] == "user")
        .unwrap_or(0);
    let output = input[last_user..]
        .iter()
        .rev()
        .find(|i| i["type"] == "function_call_output")
        .map(|i| match &i["output"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
            other => other.to_string(),
        });
    if let Some(output) = output {
        return text_events(rid, &format!("FINAL: {output}"));
    }
    if let Script::Call { name, arguments } = script {
        let offered = body["tools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|t| t["name"] == name.as_str()));
        if offered {
            return call_events(rid, name, arguments);
        }
    }
    if body["text"]["format"]["type"] == "json_schema" {
        return text_events(rid, JSON_REPLY);
    }
    match script {
        Script::Text(text) => text_events(rid, text),
        _ => text_events(rid, "plain hello"),
    }
}

fn usage() -> Value {
    json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
           "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15})
}

fn text_events(rid: &str, text: &str) -> Vec<Value> {
    let id = format!("msg_{rid}");
    let item = json!({"type": "message", "role": "assistant", "id": id, "status": "completed",
                      "content": [{"type": "output_text", "text": text, "annotations": []}]});
    let half = text
        .char_indices()
        .nth(text.chars().count() / 2)
        .map(|(i, _)| i)
        .unwrap_or(0);
    vec![
        json!({"type": "response.created", "response": {"id": rid}}),
        json!({"type": "response.output_item.added", "output_index": 0,
               "item": {"type": "message", "role": "assistant", "id": id, "status": "in_progress", "content": []}}),
        json!({"type": "response.output_text.delta", "item_id": id, "output_index": 0, "content_index": 0, "delta": &text[..half]}),
        json!({"type": "response.output_text.delta", "item_id": id, "output_index": 0, "content_index": 0, "delta": &text[half..]}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": {"id": rid, "usage": usage()}}),
    ]
}

fn call_events(rid: &str, name: &str, arguments: &str) -> Vec<Value> {
    let item = json!({"type": "function_call", "id": format!("fc_{rid}"), "call_id": format!("call_{rid}"),
                      "name": name, "arguments": arguments, "status": "completed"});
    let mut added = item.clone();
    added["arguments"] = json!("");
    added["status"] = json!("in_progress");
    vec![
        json!({"type": "response.created", "response": {"id": rid}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": added}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": {"id": rid, "usage": usage()}}),
    ]
}

/// Reads one HTTP/1.1 request with a `content-length` body (what codex sends).
async fn read_request(stream: &mut TcpStream) -> Option<(String, String, Value, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let header_end = loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let mut headers = serde_json::Map::new();
    let mut length = 0usize;
    for line in lines.filter(|l| !l.is_empty()) {
        let (name, value) = line.split_once(':')?;
        let name = name.trim().to_ascii_lowercase();
        if name == "content-length" {
            length = value.trim().parse().ok()?;
        }
        headers.insert(name, Value::String(value.trim().to_owned()));
    }
    let mut body = buf[header_end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((method, path, Value::Object(headers), body))
}
