//! `switchboard-mcp-fixture`: a real MCP server (the official `rmcp` SDK) for the tests.
//!
//! It serves three tools (`get_weather`, `get_time`, `get_news`) and `read_env`, which returns
//! the value of an environment variable the server was started with, over stdio (the default)
//! or streamable HTTP (`--http 127.0.0.1:0`, the bound address printed on stdout as
//! `listening <addr>`). With `--record PATH` (or `MCP_FIXTURE_RECORD`) it appends one JSON line
//! when it starts (its working directory), one per tool call, and over HTTP one per request
//! with its headers; a relative path is taken from the working directory, so a server in a
//! sandbox records into its workspace.

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use clap::Parser;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde_json::{Value, json};

#[derive(Debug, Parser)]
#[command(name = "switchboard-mcp-fixture")]
struct Args {
    /// Serve streamable HTTP on this address (path `/mcp`) instead of stdio.
    #[arg(long)]
    http: Option<String>,
    /// Append every request as a JSON line to this file.
    #[arg(long, env = "MCP_FIXTURE_RECORD")]
    record: Option<PathBuf>,
}

/// The JSONL record, shared by every connection of the process.
#[derive(Debug, Clone, Default)]
struct Record(Option<Arc<Mutex<std::fs::File>>>);

impl Record {
    fn open(path: Option<PathBuf>) -> anyhow::Result<Record> {
        let Some(path) = path else {
            return Ok(Record(None));
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("open the record {}", path.display()))?;
        Ok(Record(Some(Arc::new(Mutex::new(file)))))
    }

    fn write(&self, line: Value) {
        if let Some(file) = &self.0
            && let Ok(mut file) = file.lock()
        {
            // A record that cannot be written shows up as a missing line in the test.
            let _ = writeln!(file, "{line}");
        }
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Place {
    /// A city.
    city: Option<String>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EnvName {
    /// The variable's name.
    name: String,
}

#[derive(Debug, Clone)]
struct Fixture {
    record: Record,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Fixture {
    fn new(record: Record) -> Fixture {
        Fixture {
            record,
            tool_router: Self::tool_router(),
        }
    }

    fn called(&self, tool: &str, arguments: Value) {
        self.record
            .write(json!({"event": "tools/call", "tool": tool, "arguments": arguments}));
    }

    #[tool(description = "The weather in a city.")]
    fn get_weather(&self, Parameters(place): Parameters<Place>) -> String {
        let city = place.city.unwrap_or_else(|| "nowhere".into());
        self.called("get_weather", json!({"city": city}));
        format!("get_weather in {city}: sunny 21C")
    }

    #[tool(description = "The time in a city.")]
    fn get_time(&self, Parameters(place): Parameters<Place>) -> String {
        let city = place.city.unwrap_or_else(|| "nowhere".into());
        self.called("get_time", json!({"city": city}));
        format!("get_time in {city}: 12:00")
    }

    #[tool(description = "The news of a city.")]
    fn get_news(&self, Parameters(place): Parameters<Place>) -> String {
        let city = place.city.unwrap_or_else(|| "nowhere".into());
        self.called("get_news", json!({"city": city}));
        format!("get_news in {city}: nothing happened")
    }

    #[tool(description = "The value of an environment variable the server was started with.")]
    fn read_env(&self, Parameters(EnvName { name }): Parameters<EnvName>) -> String {
        self.called("read_env", json!({"name": name}));
        match std::env::var(&name) {
            Ok(value) => format!("{name}={value}"),
            Err(_) => format!("{name} is not set"),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let record = Record::open(args.record)?;
    let cwd = std::env::current_dir()
        .map(|d| d.display().to_string())
        .ok();
    record.write(
        json!({"event": "start", "cwd": cwd, "pid": std::process::id(),
        "transport": if args.http.is_some() { "http" } else { "stdio" }}),
    );
    match args.http {
        None => {
            let service = Fixture::new(record)
                .serve(rmcp::transport::stdio())
                .await
                .context("MCP initialization over stdio")?;
            service.waiting().await.context("serving stdio")?;
        }
        Some(addr) => http::serve(&addr, record).await?,
    }
    Ok(())
}

mod http {
    use axum::extract::{Request, State};
    use axum::middleware::{self, Next};
    use axum::response::Response;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    use serde_json::{Map, Value, json};

    use super::{Fixture, Record};

    pub async fn serve(addr: &str, record: Record) -> anyhow::Result<()> {
        let for_service = record.clone();
        let service: StreamableHttpService<Fixture, LocalSessionManager> =
            StreamableHttpService::new(
                move || Ok(Fixture::new(for_service.clone())),
                Default::default(),
                StreamableHttpServerConfig::default(),
            );
        let app = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(middleware::from_fn_with_state(record, headers));
        let listener = tokio::net::TcpListener::bind(addr).await?;
        println!("listening {}", listener.local_addr()?);
        axum::serve(listener, app).await?;
        Ok(())
    }

    /// Records each HTTP request's method and headers before rmcp sees it.
    async fn headers(State(record): State<Record>, request: Request, next: Next) -> Response {
        let headers: Map<String, Value> = request
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_owned(),
                    json!(String::from_utf8_lossy(v.as_bytes())),
                )
            })
            .collect();
        record.write(
            json!({"event": "http", "method": request.method().as_str(), "headers": headers}),
        );
        next.run(request).await
    }
}
