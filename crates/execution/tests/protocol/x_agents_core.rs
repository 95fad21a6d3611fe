//! `x_agents_core`: the extension object on Agent create/update and Session create.

use crate::common::{assert_error, create, create_ok, json};
use switchboard_execution::{HarnessId, ProviderProtocol, XAgentsCore, parse_x_agents_core};

fn parse(text: &str) -> Result<XAgentsCore, switchboard_execution::ValidationError> {
    parse_x_agents_core(&json(text), "x_agents_core")
}

fn provider(fields: &str) -> Result<XAgentsCore, switchboard_execution::ValidationError> {
    parse(&format!(
        r#"{{"model_provider":{{"protocol":"responses","base_url":"https://api.example.com/v1","api_key":"k"{fields}}}}}"#
    ))
}

fn base_url(url: &str) -> Result<XAgentsCore, switchboard_execution::ValidationError> {
    parse(&format!(
        r#"{{"model_provider":{{"protocol":"responses","base_url":{},"api_key":"k"}}}}"#,
        serde_json::json!(url)
    ))
}

const BASE_URL: &str = "model_provider.base_url must be an absolute HTTPS URL, or HTTP on a loopback host (127.0.0.0/8, ::1 or localhost), without credentials, query or fragment.";

#[test]
fn a_full_extension() {
    let ext = parse(
        r#"{"harness":"minimax_code","model_provider":{"protocol":"chat_completions","base_url":"http://localhost:8080/v1","api_key":"sk","context_window":8192,"max_output_tokens":8192},"harness_config":{}}"#,
    )
    .unwrap();
    assert_eq!(ext.harness, Some(HarnessId::MinimaxCode));
    let p = ext.model_provider.unwrap();
    assert_eq!(
        (p.protocol, p.base_url.as_str(), p.api_key.as_str()),
        (
            ProviderProtocol::ChatCompletions,
            "http://localhost:8080/v1",
            "sk"
        )
    );
    assert_eq!(
        (p.context_window, p.max_output_tokens),
        (Some(8192), Some(8192))
    );
    assert_eq!(ext.harness_config, Some(serde_json::Map::new()));
}

#[test]
fn every_member_is_optional_and_null_is_unset() {
    assert_eq!(parse("{}").unwrap(), XAgentsCore::default());
    assert_eq!(parse("null").unwrap(), XAgentsCore::default());
    assert_eq!(
        parse(r#"{"harness":null,"model_provider":null,"harness_config":null}"#).unwrap(),
        XAgentsCore::default()
    );
}

#[test]
fn members_and_enums() {
    assert_error(
        parse("[]"),
        Some("x_agents_core"),
        "Invalid type for 'x_agents_core': expected an object, but got an array instead.",
    );
    assert_error(
        parse(r#"{"Harness":"codex"}"#),
        Some("x_agents_core.Harness"),
        "Unknown parameter: 'x_agents_core.Harness'.",
    );
    assert_error(
        parse(r#"{"harness":"claude"}"#),
        Some("x_agents_core.harness"),
        "Invalid value: 'claude'. Supported values are: 'codex', 'claude_code', and 'minimax_code'.",
    );
    assert_error(
        parse(r#"{"harness_config":"x"}"#),
        Some("x_agents_core.harness_config"),
        "Invalid type for 'x_agents_core.harness_config': expected an object, but got a string instead.",
    );
    assert_error(
        parse(r#"{"model_provider":{"protocol":"grpc","base_url":"https://a","api_key":"k"}}"#),
        Some("x_agents_core.model_provider.protocol"),
        "Invalid value: 'grpc'. Supported values are: 'responses', 'anthropic', and 'chat_completions'.",
    );
    assert_error(
        parse(r#"{"model_provider":{"base_url":"https://a","api_key":"k"}}"#),
        Some("x_agents_core.model_provider.protocol"),
        "Missing required parameter: 'x_agents_core.model_provider.protocol'.",
    );
    assert_error(
        parse(r#"{"model_provider":{"protocol":"responses","api_key":"k"}}"#),
        Some("x_agents_core.model_provider.base_url"),
        "Missing required parameter: 'x_agents_core.model_provider.base_url'.",
    );
    assert_error(
        parse(r#"{"model_provider":{"protocol":"responses","base_url":"https://a"}}"#),
        Some("x_agents_core.model_provider.api_key"),
        "Missing required parameter: 'x_agents_core.model_provider.api_key'.",
    );
    assert_error(
        provider(r#","org":"o""#),
        Some("x_agents_core.model_provider.org"),
        "Unknown parameter: 'x_agents_core.model_provider.org'.",
    );
}

#[test]
fn base_urls() {
    for url in [
        "https://api.example.com/v1",
        "https://api.example.com",
        "http://127.0.0.1:8080/v1",
        "http://127.3.4.5/",
        "http://[::1]:9000",
        "http://localhost:1234",
        "http://LOCALHOST/v1",
    ] {
        base_url(url).unwrap_or_else(|e| panic!("{url}: {e:?}"));
    }
    for url in [
        "http://api.example.com/v1",
        "http://10.0.0.1/v1",
        "http://localhost.example.com/",
        "https://api.example.com/v1?key=x",
        "https://api.example.com/v1?",
        "https://api.example.com/v1#f",
        "https://user:pw@api.example.com/v1",
        "ftp://api.example.com",
        "api.example.com",
        "",
        " https://api.example.com",
    ] {
        assert_error(
            base_url(url),
            Some("x_agents_core.model_provider.base_url"),
            BASE_URL,
        );
    }
}

#[test]
fn api_keys() {
    let key = |k: &str| {
        parse(&format!(
            r#"{{"model_provider":{{"protocol":"responses","base_url":"https://a","api_key":{}}}}}"#,
            serde_json::json!(k)
        ))
    };
    assert_error(
        key(""),
        Some("x_agents_core.model_provider.api_key"),
        "Invalid 'x_agents_core.model_provider.api_key': empty string. Expected a string with minimum length 1, but got an empty string instead.",
    );
    for bad in ["a\nb", "a\rb", "a\0b"] {
        assert_error(
            key(bad),
            Some("x_agents_core.model_provider.api_key"),
            "model_provider.api_key cannot contain NUL, CR or LF characters.",
        );
    }
    key(&"k".repeat(16 * 1024)).unwrap();
    assert_error(
        key(&"k".repeat(16 * 1024 + 1)),
        Some("x_agents_core.model_provider.api_key"),
        "Invalid 'x_agents_core.model_provider.api_key': string too long. Expected a string of at most 16384 bytes, but got a string of 16385 bytes instead.",
    );
    // The key never appears in a message.
    let e =
        parse(r#"{"model_provider":{"protocol":"responses","base_url":"https://a","api_key":7}}"#)
            .unwrap_err();
    assert_eq!(
        e.message,
        "Invalid type for 'x_agents_core.model_provider.api_key': expected a string, but got an integer instead."
    );
}

#[test]
fn token_limits() {
    provider(r#","context_window":null,"max_output_tokens":null"#).unwrap();
    provider(r#","max_output_tokens":64000"#).unwrap();
    assert_error(
        provider(r#","context_window":0"#),
        Some("x_agents_core.model_provider.context_window"),
        "Invalid 'x_agents_core.model_provider.context_window': integer below minimum value. Expected a value >= 1, but got 0 instead.",
    );
    assert_error(
        provider(r#","max_output_tokens":1.5"#),
        Some("x_agents_core.model_provider.max_output_tokens"),
        "Invalid type for 'x_agents_core.model_provider.max_output_tokens': expected an integer, but got a number instead.",
    );
    assert_error(
        provider(r#","max_output_tokens":9000,"context_window":8192"#),
        Some("x_agents_core.model_provider.max_output_tokens"),
        "Invalid 'x_agents_core.model_provider.max_output_tokens': max_output_tokens exceeds context_window. Expected a value <= 8192, but got 9000 instead.",
    );
}

#[test]
fn saved_on_the_agent_and_overridden_field_by_field() {
    let saved = create_ok(
        r#"{"model":"m","x_agents_core":{"harness":"codex","model_provider":{"protocol":"responses","base_url":"https://a/v1","api_key":"k"}}}"#,
    );
    assert_eq!(saved.x_agents_core.harness, Some(HarnessId::Codex));
    let session = parse(r#"{"harness_config":{"model_reasoning_effort":"low"}}"#).unwrap();
    let merged = saved.x_agents_core.overridden_by(&session);
    assert_eq!(merged.harness, Some(HarnessId::Codex));
    assert_eq!(merged.model_provider, saved.x_agents_core.model_provider);
    assert!(merged.harness_config.is_some());
    assert_error(
        create(r#"{"model":"m","x_agents_core":{"harness":"gemini"}}"#),
        Some("x_agents_core.harness"),
        "Invalid value: 'gemini'. Supported values are: 'codex', 'claude_code', and 'minimax_code'.",
    );
}
