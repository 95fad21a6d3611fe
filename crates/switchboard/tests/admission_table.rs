//! Every refusal an adapter makes at preparation is already a Session create refusal.
//!
//! One table per harness: each row is a public Session create body built to trip one rule of
//! the adapter's `validate` (the adapter is run on the configuration Core would send, to prove
//! the row really trips it), and the exact refusal Session create gives first: a parser error,
//! the declaration's 400 (`validate_selection`), or the Runtime capability gate (the adapter's
//! own advertisement, narrowed to the declaration, lacks a capability the Session needs). The
//! pipeline is Core's own (`parse_session_create`, `resolve`, the snapshot and configuration
//! builders of `core::session::configuration`); this crate is the one that sees both Core and
//! the adapters.

use serde_json::{Value, json};
use switchboard_core::session::configuration::{configuration, snapshot};
use switchboard_execution::{parse_session_create, resolve};
use switchboard_harness::{declaration, required_capabilities, validate_selection};
use switchboard_protocol::{AdapterError, Capabilities, SessionConfiguration};

/// The first refusal Session create gives.
#[derive(Debug, PartialEq, Eq)]
enum Refusal {
    /// A protocol or parser error (400 `invalid_request_error`).
    Parser(Option<String>, String),
    /// 400 `unsupported_or_invalid_configuration` from the declaration.
    Declaration(String, String),
    /// No Runtime running this adapter advertises the capability.
    Capability(&'static str),
}

fn declared(param: &str, message: &str) -> Refusal {
    Refusal::Declaration(param.into(), message.into())
}

struct Row {
    /// The adapter rule the row trips, as a part of the adapter's message.
    adapter_rule: &'static str,
    body: Value,
    /// What Core would hand the adapter beyond the snapshot (no row needs it today).
    tweak: fn(&mut SessionConfiguration),
    expect: Refusal,
}

fn row(adapter_rule: &'static str, body: Value, expect: Refusal) -> Row {
    Row {
        adapter_rule,
        body,
        tweak: |_| {},
        expect,
    }
}

/// A Session create body on `harness` with a provider of `protocol`, `agent` merged in.
fn body(harness: &str, protocol: &str, agent: Value) -> Value {
    let mut inline = json!({"model": "gpt-test"});
    for (k, v) in agent.as_object().cloned().unwrap_or_default() {
        inline[k] = v;
    }
    json!({
        "environment": {"type": "none"},
        "agent": inline,
        "input": "Hello",
        "x_agents_core": {
            "harness": harness,
            "model_provider": {"protocol": protocol, "base_url": "http://127.0.0.1:1/v1", "api_key": "k"},
        },
    })
}

fn function(name: &str) -> Value {
    json!({"type": "function", "name": name, "description": "d",
           "parameters": {"type": "object", "properties": {}}})
}

/// Session create's admission, in Core's order, up to the Runtime capability gate; on success
/// the configuration Core would send to `execution_prepare`.
fn admit(body: &Value, implemented: Capabilities) -> Result<SessionConfiguration, Refusal> {
    let Value::Object(body) = body else {
        panic!("a body is an object")
    };
    let parser = |e: switchboard_execution::ValidationError| Refusal::Parser(e.param, e.message);
    let req = parse_session_create(body).map_err(parser)?;
    let mut agent = resolve(None, req.agent.as_ref()).map_err(parser)?;
    agent.x_agents_core = agent.x_agents_core.overridden_by(&req.x_agents_core);
    let harness = agent
        .x_agents_core
        .harness
        .expect("every row names its harness");
    let provider = agent
        .x_agents_core
        .model_provider
        .clone()
        .expect("every row carries a provider");
    let snap = snapshot(&agent, None, req.environment.placement(), harness);
    let decl = declaration(harness);
    validate_selection(decl, &snap).map_err(|e| {
        Refusal::Declaration(e.param.expect("Session rules name a param"), e.message)
    })?;
    let advertised = switchboard_runtime::advertise::narrow(implemented, decl);
    let Value::Object(advertised) = serde_json::to_value(advertised).unwrap() else {
        unreachable!()
    };
    for c in required_capabilities(&snap) {
        if advertised.get(c.as_str()) != Some(&Value::Bool(true)) {
            return Err(Refusal::Capability(c.as_str()));
        }
    }
    Ok(configuration(&snap, &provider))
}

/// Runs the table: each row's body must trip its adapter rule, and Session create must refuse
/// it first with the expected refusal. The baselines must pass both.
fn run(
    baselines: &[Value],
    rows: Vec<Row>,
    implemented: fn() -> Capabilities,
    validate: fn(&SessionConfiguration) -> Result<(), AdapterError>,
) {
    for b in baselines {
        let config = admit(b, implemented()).unwrap_or_else(|e| panic!("{b}: {e:?}"));
        validate(&config).unwrap_or_else(|e| panic!("{b}: the adapter refuses: {e}"));
    }
    let mut failures = Vec::new();
    for r in rows {
        // The adapter's view: the same body with admission skipped (a row that admission
        // refuses at the parser cannot build a configuration; its rule is the parser's too).
        match admit_unchecked(&r.body) {
            Some(mut config) => {
                (r.tweak)(&mut config);
                match validate(&config) {
                    Err(AdapterError::InvalidConfiguration(m)) if m.contains(r.adapter_rule) => {}
                    other => failures.push(format!(
                        "{}: the row does not trip the adapter rule: {other:?}",
                        r.adapter_rule
                    )),
                }
            }
            None => assert!(
                matches!(r.expect, Refusal::Parser(..)),
                "{}",
                r.adapter_rule
            ),
        }
        match admit(&r.body, implemented()) {
            Err(got) if got == r.expect => {}
            got => failures.push(format!(
                "{}:\n    expected {:?}\n    got      {:?}",
                r.adapter_rule,
                r.expect,
                got.map(|_| "admitted")
            )),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The configuration Core would build for the body without any declaration check (the parser
/// must pass), as the adapter would receive it if admission let it through.
fn admit_unchecked(body: &Value) -> Option<SessionConfiguration> {
    let Value::Object(body) = body else {
        return None;
    };
    let req = parse_session_create(body).ok()?;
    let mut agent = resolve(None, req.agent.as_ref()).ok()?;
    agent.x_agents_core = agent.x_agents_core.overridden_by(&req.x_agents_core);
    let harness = agent.x_agents_core.harness?;
    let provider = agent.x_agents_core.model_provider.clone()?;
    let snap = snapshot(&agent, None, req.environment.placement(), harness);
    let config = configuration(&snap, &provider);
    assert_eq!(
        serde_json::to_value(config.harness).unwrap(),
        serde_json::to_value(harness).unwrap(),
        "Core sends the selected harness, so the adapter's harness check never fires"
    );
    Some(config)
}

const MCP_LABEL: &str = "The harness does not support this MCP server label.";

/// An HTTP MCP server declaration; Core forwards it to the Runtime as an `McpServer`.
fn mcp_tool(label: &str, url: &str) -> Value {
    json!({"type": "mcp", "server_label": label, "transport": {"type": "http", "server_url": url}})
}

#[test]
fn every_codex_refusal_is_a_session_create_refusal() {
    let codex = |agent: Value| body("codex", "responses", agent);
    const NAME: &str = "The harness requires function names of 1 to 128 ASCII letters, digits, underscores or hyphens.";
    let bad_name = |name: &str| {
        row(
            "not a valid codex dynamic tool name",
            codex(json!({"tools": [function("ok"), function(name)]})),
            declared("agent.tools[1].name", NAME),
        )
    };
    run(
        &[
            codex(json!({})),
            codex(json!({"tools": [function("get_weather-2"), function(&"a".repeat(128))]})),
            codex(json!({"tools": [mcp_tool("lab", "https://mcp.example.com/mcp")]})),
        ],
        vec![
            row(
                "codex needs a model provider that speaks the Responses protocol",
                body("codex", "anthropic", json!({})),
                declared(
                    "x_agents_core.model_provider",
                    "selected harness does not support this model provider protocol",
                ),
            ),
            row(
                "MCP server label codex_apps is reserved by codex",
                codex(json!({"tools": [mcp_tool("codex_apps", "https://mcp.example.com/mcp")]})),
                declared("agent.tools", MCP_LABEL),
            ),
            bad_name("get.weather"),
            bad_name("get weather"),
            bad_name("get\0weather"),
            bad_name("é"),
            bad_name(&"a".repeat(129)),
        ],
        switchboard_codex::CodexAdapter::capabilities,
        switchboard_codex::validate,
    );
}

#[test]
fn every_claude_code_refusal_is_a_session_create_refusal() {
    let claude = |agent: Value| body("claude_code", "anthropic", agent);
    let search = |settings: Value| {
        let mut tool = json!({"type": "web_search", "mode": "live"});
        for (k, v) in settings.as_object().cloned().unwrap_or_default() {
            tool[k] = v;
        }
        claude(json!({"tools": [tool]}))
    };
    let harness_config = |config: Value| {
        let mut b = claude(json!({}));
        b["x_agents_core"]["harness_config"] = config;
        b
    };
    let effort_values =
        "The harness supports harness_config.effort values low, medium, high, xhigh, max.";
    run(
        &[
            claude(json!({})),
            claude(json!({"tools": [function("get.weather"), function("other")]})),
            search(json!({})),
            harness_config(json!({"effort": "max"})),
            claude(json!({"tools": [mcp_tool("lab", "https://mcp.example.com/mcp")]})),
        ],
        vec![
            row(
                "Claude Code needs a model provider that speaks the Anthropic protocol",
                body("claude_code", "responses", json!({})),
                declared(
                    "x_agents_core.model_provider",
                    "selected harness does not support this model provider protocol",
                ),
            ),
            row(
                "model must be a nonempty model identifier",
                claude(json!({"model": "  "})),
                declared("agent.model", "model must be a nonempty model identifier"),
            ),
            row(
                "model cannot contain NUL",
                claude(json!({"model": "claude\0test"})),
                declared(
                    "agent.model",
                    "The harness requires a model identifier without NUL characters.",
                ),
            ),
            row(
                "claude cannot name an MCP server \"functions\"",
                claude(json!({"tools": [mcp_tool("functions", "https://mcp.example.com/mcp")]})),
                declared("agent.tools", MCP_LABEL),
            ),
            row(
                "claude rejects ${ in server_url",
                claude(json!({"tools": [mcp_tool("lab", "https://mcp.example.com/${HOME}")]})),
                declared(
                    "agent.tools[0].transport.server_url",
                    "The harness does not support '${' in an MCP server_url.",
                ),
            ),
            row(
                "function names must not be empty",
                claude(json!({"tools": [function("")]})),
                Refusal::Parser(
                    Some("agent.tools[0].name".into()),
                    "Invalid 'agent.tools[0].name': blank string. Expected a function name with at least one non-whitespace character.".into(),
                ),
            ),
            row(
                "needs a parameters schema with \"type\": \"object\" at its root",
                claude(json!({"tools": [{"type": "function", "name": "f", "description": "d", "parameters": {"properties": {}}}]})),
                declared(
                    "agent.tools[0].parameters",
                    "The harness requires function parameters with a type \"object\" root.",
                ),
            ),
            row(
                "collides with another function once Claude Code normalizes its name",
                claude(json!({"tools": [function("get.weather"), function("get_weather")]})),
                declared(
                    "agent.tools[1].name",
                    "The harness names this tool mcp__functions__get_weather, as it names another tool of the Session.",
                ),
            ),
            row(
                "collides with another function once Claude Code normalizes its name",
                claude(json!({"tools": [function("a😀"), function("a__")]})),
                declared(
                    "agent.tools[1].name",
                    "The harness names this tool mcp__functions__a__, as it names another tool of the Session.",
                ),
            ),
            row(
                "Claude Code supports web_search modes disabled and live",
                search(json!({"mode": "cached"})),
                declared(
                    "agent.tools[0].mode",
                    "The harness does not support web_search mode 'cached'.",
                ),
            ),
            row(
                "Claude Code takes web_search with context_size medium",
                search(json!({"context_size": "high"})),
                declared(
                    "agent.tools[0].context_size",
                    "The harness supports web_search context_size 'medium' only.",
                ),
            ),
            row(
                "Claude Code takes web_search with context_size medium and no allowed_domains",
                search(json!({"allowed_domains": []})),
                declared(
                    "agent.tools[0].allowed_domains",
                    "The harness does not support web_search allowed_domains.",
                ),
            ),
            row(
                "Claude Code takes web_search with context_size medium and no allowed_domains or location",
                search(json!({"location": {}})),
                declared(
                    "agent.tools[0].location",
                    "The harness does not support web_search location.",
                ),
            ),
            row(
                "Claude Code supports programmatic_tool_calling disabled only",
                claude(json!({"tools": [{"type": "programmatic_tool_calling", "enabled": true}]})),
                declared(
                    "agent.tools[0].enabled",
                    "The harness does not support programmatic_tool_calling enabled=true.",
                ),
            ),
            row(
                "Claude Code supports text verbosity medium only",
                claude(json!({"text": {"verbosity": "low"}})),
                declared(
                    "agent.text.verbosity",
                    "The harness supports medium text verbosity only.",
                ),
            ),
            row(
                "Claude Code has no reasoning summary setting",
                claude(json!({"reasoning": {"summary": "auto"}})),
                declared(
                    "agent.reasoning.summary",
                    "The harness does not support reasoning summary 'auto'.",
                ),
            ),
            row(
                "Claude Code supports reasoning effort low, medium, high, xhigh and max",
                claude(json!({"reasoning": {"effort": "minimal"}})),
                declared(
                    "agent.reasoning.effort",
                    "The harness does not support reasoning effort 'minimal'.",
                ),
            ),
            row(
                "Claude Code supports reasoning effort low, medium, high, xhigh and max",
                claude(json!({"reasoning": {"effort": "none"}})),
                declared(
                    "agent.reasoning.effort",
                    "The harness does not support reasoning effort 'none'.",
                ),
            ),
            row(
                "Claude Code supports service tier auto only",
                claude(json!({"service_tier": "priority"})),
                declared(
                    "agent.service_tier",
                    "The harness does not support service_tier 'priority'.",
                ),
            ),
            row(
                "Claude Code needs an output schema with \"type\": \"object\" at its root",
                claude(json!({"text": {"format": {"type": "json_schema", "schema": {"properties": {}}}}})),
                declared(
                    "agent.text.format",
                    "This runtime requires an object schema with lossless JSON numbers.",
                ),
            ),
            row(
                "harness_config.effort must be one of low, medium, high, xhigh, max",
                harness_config(json!({"effort": "none"})),
                declared("x_agents_core.harness_config.effort", effort_values),
            ),
            row(
                "harness_config.effort must be one of low, medium, high, xhigh, max",
                harness_config(json!({"effort": 3})),
                declared("x_agents_core.harness_config.effort", effort_values),
            ),
            row(
                "harness_config.thinking is not supported by this Runtime yet",
                harness_config(json!({"thinking": {"type": "adaptive"}})),
                declared(
                    "x_agents_core.harness_config.thinking",
                    "The harness does not support harness_config member 'thinking'.",
                ),
            ),
        ],
        switchboard_claude::ClaudeAdapter::capabilities,
        switchboard_claude::validate,
    );
}

/// Message images: whatever image the Claude adapter cannot put in a `user` line, input
/// admission refuses before it is stored (so no Turn starts on it).
#[test]
fn every_claude_code_message_image_refusal_is_an_input_admission_refusal() {
    use switchboard_harness::validate_message_input;
    use switchboard_protocol::InputPart;
    let decl = declaration(switchboard_execution::HarnessId::ClaudeCode);
    let urls = [
        "https://example.com/a.png",
        "http://127.0.0.1/a.png",
        "data:image/png;base64,iVBORw0KGgo=",
        "data:image/jpeg;base64,/9j/",
        "data:image/gif;base64,R0lGODlh",
        "data:image/webp;base64,UklGRg==",
        "data:image/bmp;base64,Qk0=",
        "data:image/png;base64,",
        "data:image/png,raw",
        "file:///etc/passwd",
        "ftp://example.com/a.png",
    ];
    let mut refused_by_adapter = 0;
    for url in urls {
        let adapter = switchboard_claude::input::user_content(&[InputPart::InputImage {
            image_url: url.into(),
        }]);
        let admission = validate_message_input(
            decl,
            &[
                InputPart::InputText { text: "x".into() },
                InputPart::InputImage {
                    image_url: url.into(),
                },
            ],
        );
        if adapter.is_err() {
            refused_by_adapter += 1;
            assert!(
                admission.is_err(),
                "{url}: the adapter refuses it, admission lets it in"
            );
        }
    }
    assert_eq!(
        refused_by_adapter, 5,
        "the table exercises the adapter's refusal"
    );
}

/// Function results: whatever result the Claude adapter cannot hand back as MCP content,
/// result admission refuses before it consumes the pending call.
#[test]
fn every_claude_code_function_result_refusal_is_a_result_admission_refusal() {
    use switchboard_harness::{FunctionOutput as Admitted, validate_function_result};
    use switchboard_protocol::{FunctionOutput, FunctionResultContent, InputPart};
    let decl = declaration(switchboard_execution::HarnessId::ClaudeCode);
    let png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    let urls = [
        png,
        "data:image/gif;base64,R0lGODlh",
        "https://example.com/a.png",
        "data:image/png;base64,",
    ];
    let mut refused_by_adapter = 0;
    for success in [true, false] {
        for url in urls {
            let result = FunctionResultContent {
                success,
                output: Some(FunctionOutput::Parts(vec![
                    InputPart::InputText { text: "t".into() },
                    InputPart::InputImage {
                        image_url: url.into(),
                    },
                ])),
                error: (!success).then(|| "boom".into()),
            };
            let adapter = switchboard_claude::functions::call_result(&result);
            let admission = validate_function_result(
                decl,
                success,
                Some(&Admitted::Parts(vec![
                    InputPart::InputText { text: "t".into() },
                    InputPart::InputImage {
                        image_url: url.into(),
                    },
                ])),
            );
            if adapter.is_err() {
                refused_by_adapter += 1;
                assert!(
                    admission.is_err(),
                    "{url} (success {success}): admission lets it in"
                );
            }
        }
    }
    assert_eq!(
        refused_by_adapter, 6,
        "the table exercises both adapter refusals"
    );
}
