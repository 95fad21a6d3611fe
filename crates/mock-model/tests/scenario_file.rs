//! Scenario files: the JSON format parses into the same rules the Rust constructors build, and
//! mistakes are refused at load time with the place they are at.

use serde_json::json;
use switchboard_mock_model::{
    DropReply, ItemKind, Protocol, Reply, Rule, Scenario, ScenarioError, ToolCall, When,
};

const EXAMPLE: &str = r#"{
  "rules": [
    {"name": "call the tool",
     "when": {"protocol": "responses", "tool_offered": "get_weather", "tool_output_present": false},
     "reply": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"},
                               "namespace": "mcp__lab", "id": "call_1"}]},
     "times": 1},
    {"when": {"last_kind": "tool_output", "last_text_contains": "sunny"},
     "reply": {"text": "It is sunny.", "deltas": 3, "interval_ms": 10}},
    {"when": {"request": 5}, "reply": {"error": {"status": 503, "message": "busy"}}},
    {"when": {"json_schema": true, "stream": false}, "reply": {"structured": {"answer": "42"}}},
    {"when": {"last_text_equals": "cut"}, "reply": {"drop": {"after_events": 2}}},
    {"when": {"last_text_equals": "hang up"}, "reply": {"drop": true}}
  ],
  "otherwise": {"delay_ms": 20}
}"#;

#[test]
fn the_json_format_builds_the_same_rules_as_rust() {
    let parsed = Scenario::from_json(EXAMPLE).unwrap();
    let built = Scenario::new(vec![
        Rule::new(
            When {
                protocol: Some(Protocol::Responses),
                tool_offered: Some("get_weather".into()),
                tool_output_present: Some(false),
                ..When::default()
            },
            Reply::tool_calls(vec![
                ToolCall::new("get_weather", json!({"city": "Paris"}))
                    .namespace("mcp__lab")
                    .id("call_1"),
            ]),
        )
        .named("call the tool")
        .times(1),
        Rule::new(
            When {
                last_kind: Some(ItemKind::ToolOutput),
                last_text_contains: Some("sunny".into()),
                ..When::default()
            },
            Reply::text("It is sunny.").deltas(3).interval_ms(10),
        ),
        Rule::new(
            When {
                request: Some(5),
                ..When::default()
            },
            Reply::error(503, "busy"),
        ),
        Rule::new(
            When {
                json_schema: Some(true),
                stream: Some(false),
                ..When::default()
            },
            Reply::structured(json!({"answer": "42"})),
        ),
        Rule::new(
            When {
                last_text_equals: Some("cut".into()),
                ..When::default()
            },
            Reply::default().drop_after_events(2),
        ),
        Rule::new(
            When {
                last_text_equals: Some("hang up".into()),
                ..When::default()
            },
            Reply::drop_connection(),
        ),
    ])
    .with_otherwise(Reply::default().delay_ms(20));
    assert_eq!(parsed, built);
    assert_eq!(parsed.rules[5].reply.drop, Some(DropReply::Now(true)));

    // And back: what a Rust test builds can be written out as a file.
    let written = serde_json::to_string(&built).unwrap();
    assert_eq!(Scenario::from_json(&written).unwrap(), built);
}

#[test]
fn a_scenario_file_loads_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scenario.json");
    std::fs::write(&path, EXAMPLE).unwrap();
    assert_eq!(Scenario::load(&path).unwrap().rules.len(), 6);
    let missing = Scenario::load(&dir.path().join("missing.json")).unwrap_err();
    assert!(matches!(missing, ScenarioError::Read { .. }), "{missing}");
}

#[test]
fn mistakes_are_refused_with_their_place() {
    let unknown_member =
        Scenario::from_json(r#"{"rules": [{"when": {"tool": "x"}, "reply": {}}]}"#);
    let message = unknown_member.unwrap_err().to_string();
    assert!(message.contains("unknown field `tool`"), "{message}");

    let cases = [
        (
            r#"{"rules": [{"reply": {"error": {"status": 200}}}]}"#,
            "rules[0].reply",
        ),
        (
            r#"{"rules": [{"reply": {"error": {"status": 500}, "text": "x"}}]}"#,
            "rules[0].reply",
        ),
        (
            r#"{"rules": [{"reply": {"structured": {}, "text": "x"}}]}"#,
            "rules[0].reply",
        ),
        (
            r#"{"rules": [{"reply": {"drop": true, "text": "x"}}]}"#,
            "rules[0].reply",
        ),
        (
            r#"{"rules": [{"reply": {"drop": false}}]}"#,
            "rules[0].reply",
        ),
        (
            r#"{"rules": [{"reply": {"text": "x", "deltas": 0}}]}"#,
            "rules[0].reply",
        ),
        (
            r#"{"rules": [{"reply": {"tool_calls": [{"name": ""}]}}]}"#,
            "rules[0].reply",
        ),
        (
            r#"{"rules": [{"reply": {}, "times": 0}]}"#,
            "rules[0].times",
        ),
        (r#"{"otherwise": {"error": {"status": 99}}}"#, "otherwise"),
    ];
    for (text, at) in cases {
        match Scenario::from_json(text) {
            Err(ScenarioError::Invalid { at: got, .. }) => assert_eq!(got, at, "{text}"),
            other => panic!("{text} gave {other:?}"),
        }
    }
}
