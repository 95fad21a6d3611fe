//! Shared helpers for the admission table tests.
//!
//! A [`Row`] is one rule: a change to a baseline Session snapshot, and the expected outcome in
//! each harness column (Codex, Claude Code, MiniMax Code, in that order). [`run`] checks every
//! cell and reports all mismatches at once, so one failing rule does not hide the others.

use serde_json::{Map, Value, json};
use switchboard_execution::*;
use switchboard_harness::{
    AdmissionError, Declaration, declaration, required_capabilities, validate_selection,
};

/// The harness columns, in table order.
pub const COLUMNS: [HarnessId; 3] = [
    HarnessId::Codex,
    HarnessId::ClaudeCode,
    HarnessId::MinimaxCode,
];

/// `Ok` or `(param, message)`.
pub type Outcome = Result<(), (Option<String>, String)>;

pub fn admit() -> Outcome {
    Ok(())
}

pub fn reject(param: &str, message: &str) -> Outcome {
    Err((Some(param.to_owned()), message.to_owned()))
}

/// A rejection without a param (input admission).
pub fn reject_null(message: &str) -> Outcome {
    Err((None, message.to_owned()))
}

/// The same outcome in every column.
pub fn every(outcome: Outcome) -> [Outcome; 3] {
    [outcome.clone(), outcome.clone(), outcome]
}

pub fn outcome(result: Result<(), AdmissionError>) -> Outcome {
    result.map_err(|e| (e.param, e.message))
}

/// One rule: how the Session differs from the baseline, and the outcome per harness.
pub struct Row {
    pub case: &'static str,
    pub build: fn(&mut SessionSnapshot),
    pub expect: [Outcome; 3],
}

pub fn row(case: &'static str, build: fn(&mut SessionSnapshot), expect: [Outcome; 3]) -> Row {
    Row {
        case,
        build,
        expect,
    }
}

/// Checks every cell of the table. An admitted snapshot must also need nothing beyond the
/// declaration's capability maximum, or no Runtime could ever run what admission let in.
pub fn run(rows: &[Row]) {
    let mut failures = Vec::new();
    for r in rows {
        for (h, expected) in COLUMNS.iter().zip(&r.expect) {
            let mut snap = snapshot(*h);
            (r.build)(&mut snap);
            let decl = declaration(*h);
            let got = outcome(validate_selection(decl, &snap));
            if &got != expected {
                failures.push(format!(
                    "{} [{}]:\n    expected {expected:?}\n    got      {got:?}",
                    r.case,
                    h.as_str()
                ));
            }
            if got.is_ok() {
                for c in required_capabilities(&snap) {
                    if !decl.has_capability(c) {
                        failures.push(format!(
                            "{} [{}]: admitted but needs {}",
                            r.case,
                            h.as_str(),
                            c.as_str()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} cell(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs one snapshot, built from `h`'s baseline, against a custom declaration.
pub fn check_with(decl: &Declaration, h: HarnessId, build: fn(&mut SessionSnapshot)) -> Outcome {
    let mut snap = snapshot(h);
    build(&mut snap);
    outcome(validate_selection(decl, &snap))
}

/// The baseline: no environment, no tools, defaults everywhere, and a provider bundle with the
/// harness's default protocol and positive token limits, so it is admitted everywhere.
pub fn snapshot(h: HarnessId) -> SessionSnapshot {
    SessionSnapshot {
        agent_id: None,
        placement: Placement::None,
        harness: h,
        model: "test-model".into(),
        instructions: None,
        tools: Vec::new(),
        text: TextConfig::default(),
        reasoning: Reasoning::default(),
        service_tier: ServiceTier::Auto,
        multi_agent: MultiAgent::default(),
        model_provider: Some(provider(declaration(h).default_protocol())),
        harness_config: None,
    }
}

pub fn provider(protocol: ProviderProtocol) -> ModelProvider {
    ModelProvider {
        protocol,
        base_url: "https://provider.example/v1".into(),
        api_key: "sk-test".into(),
        context_window: Some(200_000),
        max_output_tokens: Some(8_192),
    }
}

pub const WORKSPACE: &str = "/srv/app";

pub fn self_hosted() -> Placement {
    Placement::SelfHosted {
        workspace_directory: WORKSPACE.into(),
    }
}

pub fn function(name: &str) -> Tool {
    function_with(name, json!({"type": "object", "properties": {}}))
}

pub fn function_with(name: &str, parameters: Value) -> Tool {
    Tool::Function(FunctionTool {
        name: name.into(),
        description: format!("The {name} function."),
        parameters,
        defer_loading: false,
        is_async: None,
    })
}

pub fn deferred(name: &str) -> Tool {
    let mut tool = function(name);
    if let Tool::Function(f) = &mut tool {
        f.defer_loading = true;
    }
    tool
}

pub fn web_search(mode: WebSearchMode) -> WebSearchTool {
    WebSearchTool {
        mode,
        context_size: ContextSize::Medium,
        allowed_domains: None,
        location: None,
    }
}

pub fn ptc(enabled: bool) -> Tool {
    Tool::ProgrammaticToolCalling(ProgrammaticToolCalling { enabled })
}

/// An HTTP server with the HTTP default origin (`service`), everything else off.
pub fn http_mcp(label: &str) -> McpTool {
    McpTool {
        server_label: label.into(),
        transport: McpTransport::Http {
            server_url: "https://mcp.example.com/mcp".into(),
            headers: Map::new(),
        },
        connection_origin: ConnectionOrigin::Service,
        allowed_tools: None,
        required: false,
        credential_id: None,
        request_metadata: Map::new(),
    }
}

/// An HTTP server connecting from the workspace.
pub fn env_http_mcp(label: &str) -> McpTool {
    McpTool {
        connection_origin: ConnectionOrigin::Environment,
        ..http_mcp(label)
    }
}

pub fn stdio_mcp(label: &str, cwd: &str) -> McpTool {
    McpTool {
        server_label: label.into(),
        transport: McpTransport::Stdio {
            command: "ticket-server".into(),
            args: vec!["--stdio".into()],
            cwd: cwd.into(),
            env_vars: vec!["TICKETS_TOKEN".into()],
        },
        connection_origin: ConnectionOrigin::Environment,
        allowed_tools: None,
        required: false,
        credential_id: None,
        request_metadata: Map::new(),
    }
}

/// Parses JSON text with the workspace's lossless numbers.
pub fn json_text(text: &str) -> Value {
    serde_json::from_str(text).expect("test JSON")
}
