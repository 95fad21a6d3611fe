//! Session create bodies: members, the environment union, initial input, and the order of the
//! first error (protocol errors, then the agent conflicts, then the initial-input rules).

use crate::common::{assert_error, object};
use serde_json::json as j;
use switchboard_execution::{
    EnvironmentRequest, HarnessId, InputMessage, InputPart, Placement, SessionCreate,
    ValidationError, error_messages, parse_session_create,
};

fn create(text: &str) -> Result<SessionCreate, ValidationError> {
    parse_session_create(&object(text))
}

fn create_ok(text: &str) -> SessionCreate {
    create(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

/// A valid body with `fields` added (conversation-only, inline model, string input).
fn with(fields: &str) -> String {
    format!(r#"{{"environment":{{"type":"none"}},"agent":{{"model":"m"}},"input":"Hi",{fields}}}"#)
}

fn text(s: &str) -> InputPart {
    InputPart::InputText {
        text: s.to_string(),
    }
}

#[test]
fn a_minimal_body_gets_every_default() {
    let s = create_ok(r#"{"environment":{"type":"none"},"agent":{"model":"m"},"input":"Hello"}"#);
    assert_eq!(s.environment, EnvironmentRequest::None);
    assert_eq!(s.agent.unwrap().model.as_deref(), Some("m"));
    assert_eq!(s.agent_id, None);
    assert_eq!(
        s.input,
        Some(vec![InputMessage {
            content: vec![text("Hello")]
        }])
    );
    assert!(s.metadata.is_empty());
    assert!(s.vault_ids.is_empty());
    assert_eq!((s.prompt_cache_options, s.review), (None, None));
    assert!(!s.stream);
    assert!(s.include_obfuscation);
    assert_eq!(s.x_agents_core, Default::default());
}

#[test]
fn the_recorded_sdk_bodies_parse() {
    let s = create_ok(
        r#"{"environment":{"type":"self_hosted","workspace_directory":"/work"},"agent":{"reasoning":{"effort":"high"}},"agent_id":"agent_1",
            "input":[{"role":"user","content":[{"type":"input_text","text":"hi"},{"type":"input_image","image_url":"data:image/png;base64,AA"}]}],
            "prompt_cache_options":{"ttl":"12h"},"review":"none","vault_ids":["vault_1"]}"#,
    );
    assert_eq!(
        s.environment.placement(),
        Placement::SelfHosted {
            workspace_directory: "/work".into()
        }
    );
    assert_eq!(s.agent_id.as_deref(), Some("agent_1"));
    assert_eq!(
        s.input.unwrap()[0].content,
        [
            text("hi"),
            InputPart::InputImage {
                image_url: "data:image/png;base64,AA".into()
            }
        ]
    );
    assert_eq!(s.prompt_cache_options, Some(j!({"ttl": "12h"})));
    assert_eq!(s.review.as_deref(), Some("none"));
    assert_eq!(s.vault_ids, ["vault_1"]);

    let s = create_ok(
        r#"{"stream":true,"environment":{"type":"none"},"agent":{"model":"gpt-x"},"input":"Hi","stream_options":{"include_obfuscation":false}}"#,
    );
    assert!(s.stream);
    assert!(!s.include_obfuscation);
}

#[test]
fn unknown_members_are_rejected_by_exact_name() {
    for member in ["tool_choice", "Environment", "name", "harness"] {
        assert_error(
            create(&with(&format!(r#""{member}":1"#))),
            Some(member),
            &format!("Unknown parameter: '{member}'."),
        );
    }
}

#[test]
fn environment_is_a_required_union() {
    assert_error(
        create(r#"{"agent":{"model":"m"},"input":"x"}"#),
        Some("environment"),
        "Missing required parameter: 'environment'.",
    );
    assert_error(
        create(r#"{"environment":null}"#),
        Some("environment"),
        "Invalid type for 'environment': expected an object, but got null instead.",
    );
    assert_error(
        create(r#"{"environment":{"workspace_directory":"/w"}}"#),
        Some("environment.type"),
        "Missing required parameter: 'environment.type'.",
    );
    assert_error(
        create(r#"{"environment":{"type":"cloud"}}"#),
        Some("environment.type"),
        "Invalid value: 'cloud'. Supported values are: 'none', 'openai_hosted', and 'self_hosted'.",
    );
    assert_error(
        create(r#"{"environment":{"type":"none","workspace_directory":"/w"}}"#),
        Some("environment.workspace_directory"),
        "Unknown parameter: 'environment.workspace_directory'.",
    );
}

#[test]
fn self_hosted_needs_a_workspace_directory() {
    assert_error(
        create(r#"{"environment":{"type":"self_hosted"},"agent":{"model":"m"}}"#),
        Some("environment.workspace_directory"),
        "Missing required parameter: 'environment.workspace_directory'.",
    );
    assert_error(
        create(r#"{"environment":{"type":"self_hosted","workspace_directory":7}}"#),
        Some("environment.workspace_directory"),
        "Invalid type for 'environment.workspace_directory': expected a string, but got an integer instead.",
    );
    assert_error(
        create(
            r#"{"environment":{"type":"self_hosted","workspace_directory":"/w","capability_directories":["/c",1]}}"#,
        ),
        Some("environment.capability_directories[1]"),
        "Invalid type for 'environment.capability_directories[1]': expected a string, but got an integer instead.",
    );
    assert_error(
        create(
            r#"{"environment":{"type":"self_hosted","workspace_directory":"/w","remote_url":"x"}}"#,
        ),
        Some("environment.remote_url"),
        "Unknown parameter: 'environment.remote_url'.",
    );
    let s = create_ok(
        r#"{"environment":{"type":"self_hosted","workspace_directory":"/w","capability_directories":["/c"]},"agent":{"model":"m"}}"#,
    );
    assert_eq!(
        s.environment,
        EnvironmentRequest::SelfHosted {
            workspace_directory: "/w".into(),
            capability_directories: Some(j!(["/c"])),
        }
    );
    let s = create_ok(
        r#"{"environment":{"type":"self_hosted","workspace_directory":"/w","capability_directories":null},"agent":{"model":"m"}}"#,
    );
    assert!(matches!(
        s.environment,
        EnvironmentRequest::SelfHosted {
            capability_directories: None,
            ..
        }
    ));
}

#[test]
fn openai_hosted_is_read_member_by_member() {
    let s = create_ok(
        r#"{"environment":{"type":"openai_hosted","network":{"access":"disabled"},"files":[{"type":"inline","path":"/workspace/a","data":"aGk="}]},"agent":{"model":"m"}}"#,
    );
    assert_eq!(s.environment.placement(), Placement::OpenaiHosted);
    let EnvironmentRequest::OpenaiHosted(env) = s.environment else {
        panic!("not hosted");
    };
    assert!(env.network_disabled);
    assert_eq!(env.files[0].path, "/workspace/a");
    assert_eq!(env.unbuilt, None);
}

#[test]
fn openai_hosted_unknown_members_are_refused() {
    let e = create(r#"{"environment":{"type":"openai_hosted","gpu":true},"agent":{"model":"m"}}"#)
        .unwrap_err();
    assert_eq!(e.param.as_deref(), Some("environment.gpu"));
}

#[test]
fn input_takes_a_string_or_a_message_list() {
    let s = create_ok(
        r#"{"environment":{"type":"none"},"agent":{"model":"m"},
            "input":[{"type":"message","role":"user","content":"a"},{"role":"user","content":[{"type":"input_text","text":"b"}]}]}"#,
    );
    assert_eq!(
        s.input.unwrap(),
        [
            InputMessage {
                content: vec![text("a")]
            },
            InputMessage {
                content: vec![text("b")]
            }
        ]
    );
    let s = create_ok(
        r#"{"environment":{"type":"self_hosted","workspace_directory":"/w"},"agent":{"model":"m"},"input":null}"#,
    );
    assert_eq!(s.input, None);
}

#[test]
fn input_errors_name_their_path() {
    let body = |input: &str| {
        format!(r#"{{"environment":{{"type":"none"}},"agent":{{"model":"m"}},"input":{input}}}"#)
    };
    let cases = [
        (
            "5",
            "input",
            "Invalid type for 'input': expected a string or an array, but got an integer instead.",
        ),
        (
            "[]",
            "input",
            "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        ),
        (
            r#"["hi"]"#,
            "input[0]",
            "Invalid type for 'input[0]': expected an object, but got a string instead.",
        ),
        (
            r#"[{"role":"assistant","content":"x"}]"#,
            "input[0].role",
            "Invalid value: 'assistant'. Supported values are: 'user'.",
        ),
        (
            r#"[{"type":"function_call_output","zz":1}]"#,
            "input[0].type",
            "Invalid value: 'function_call_output'. Supported values are: 'message'.",
        ),
        (
            r#"[{"type":null,"role":"user","content":"x"}]"#,
            "input[0].type",
            "Invalid type for 'input[0].type': expected a string, but got null instead.",
        ),
        (
            r#"[{"role":"user","content":"x","phase":null}]"#,
            "input[0].phase",
            "Unknown parameter: 'input[0].phase'.",
        ),
        (
            r#"[{"content":"x"}]"#,
            "input[0].role",
            "Missing required parameter: 'input[0].role'.",
        ),
        (
            r#"[{"role":"user"}]"#,
            "input[0].content",
            "Missing required parameter: 'input[0].content'.",
        ),
        (
            r#"[{"role":"user","content":[]}]"#,
            "input[0].content",
            "Invalid 'input[0].content': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        ),
        (
            r#"[{"role":"user","content":{"type":"input_text","text":"x"}}]"#,
            "input[0].content",
            "Invalid type for 'input[0].content': expected a string or an array, but got an object instead.",
        ),
        (
            r#"[{"role":"user","content":[{"type":"output_text","text":"x"}]}]"#,
            "input[0].content[0].type",
            "Invalid value: 'output_text'. Supported values are: 'input_text' and 'input_image'.",
        ),
        (
            r#"[{"role":"user","content":[{"type":"input_image"}]}]"#,
            "input[0].content[0].image_url",
            "Missing required parameter: 'input[0].content[0].image_url'.",
        ),
        (
            r#"[{"role":"user","content":[{"type":"input_image","image_url":"u","detail":"low"}]}]"#,
            "input[0].content[0].detail",
            "Unknown parameter: 'input[0].content[0].detail'.",
        ),
        (
            r#"[{"role":"user","content":[{"type":"input_text","text":null}]}]"#,
            "input[0].content[0].text",
            "Invalid type for 'input[0].content[0].text': expected a string, but got null instead.",
        ),
    ];
    for (input, param, message) in cases {
        assert_error(create(&body(input)), Some(param), message);
    }
}

#[test]
fn metadata_vaults_cache_and_review() {
    assert_error(
        create(&with(r#""metadata":{"k":1}"#)),
        Some("metadata.k"),
        "Invalid type for 'metadata.k': expected a string, but got an integer instead.",
    );
    assert_eq!(
        create_ok(&with(r#""metadata":{"k":"v"}"#)).metadata["k"],
        "v"
    );
    assert!(create_ok(&with(r#""metadata":null"#)).metadata.is_empty());
    assert!(create_ok(&with(r#""vault_ids":null"#)).vault_ids.is_empty());
    assert_error(
        create(&with(r#""vault_ids":[null]"#)),
        Some("vault_ids[0]"),
        "Invalid type for 'vault_ids[0]': expected a string, but got null instead.",
    );
    assert_error(
        create(&with(r#""prompt_cache_options":{"ttl":"1h"}"#)),
        Some("prompt_cache_options.ttl"),
        "Invalid value: '1h'. Supported values are: '30m' and '12h'.",
    );
    assert_error(
        create(&with(r#""prompt_cache_options":{"retention":"1h"}"#)),
        Some("prompt_cache_options.retention"),
        "Unknown parameter: 'prompt_cache_options.retention'.",
    );
    assert_eq!(
        create_ok(&with(r#""prompt_cache_options":null"#)).prompt_cache_options,
        None
    );
    assert_error(
        create(&with(r#""review":"manual""#)),
        Some("review"),
        "Invalid value: 'manual'. Supported values are: 'none' and 'auto_review'.",
    );
    assert_eq!(
        create_ok(&with(r#""review":"auto_review""#))
            .review
            .as_deref(),
        Some("auto_review")
    );
}

#[test]
fn agent_id_and_agent_paths() {
    assert_error(
        create(&with(r#""agent_id":null"#)),
        Some("agent_id"),
        "Invalid type for 'agent_id': expected a string, but got null instead.",
    );
    assert_error(
        create(
            r#"{"environment":{"type":"none"},"agent":{"model":"m","tools":[{"type":"function"}]}}"#,
        ),
        Some("agent.tools[0].name"),
        "Missing required parameter: 'agent.tools[0].name'.",
    );
    assert_error(
        create(r#"{"environment":{"type":"none"},"agent":{"model":"m","name":"n"}}"#),
        Some("agent.name"),
        "Unknown parameter: 'agent.name'.",
    );
}

#[test]
fn without_agent_id_the_model_is_required() {
    for body in [
        r#"{"environment":{"type":"none"},"input":"x"}"#,
        r#"{"environment":{"type":"none"},"agent":{"instructions":"i"},"input":"x"}"#,
    ] {
        assert_error(
            create(body),
            Some("agent.model"),
            "Missing required parameter: 'agent.model'.",
        );
    }
    let s = create_ok(r#"{"environment":{"type":"none"},"agent_id":"agent_1","input":"x"}"#);
    assert_eq!(s.agent, None);
    // Missing members come in declared order: environment first.
    assert_error(
        create(r#"{"input":"x"}"#),
        Some("environment"),
        "Missing required parameter: 'environment'.",
    );
}

#[test]
fn stream_and_its_options() {
    assert_error(
        create(&with(r#""stream":null"#)),
        Some("stream"),
        "Invalid type for 'stream': expected a boolean, but got null instead.",
    );
    for fields in [
        r#""stream_options":{"include_obfuscation":false}"#,
        r#""stream":false,"stream_options":{}"#,
    ] {
        let e = create(&with(fields)).unwrap_err();
        assert_eq!(
            (e.param.as_deref(), e.message.as_str(), e.code.code()),
            (
                Some("stream_options"),
                "The 'stream_options' parameter is only allowed when 'stream' is true.",
                Some("invalid_request_error")
            )
        );
    }
    assert!(create_ok(&with(r#""stream_options":null"#)).include_obfuscation);
    assert_error(
        create(&with(
            r#""stream":true,"stream_options":{"include_obfuscation":null}"#,
        )),
        Some("stream_options.include_obfuscation"),
        "Invalid type for 'stream_options.include_obfuscation': expected a boolean, but got null instead.",
    );
    assert_error(
        create(&with(
            r#""stream":true,"stream_options":{"include_usage":true}"#,
        )),
        Some("stream_options.include_usage"),
        "Unknown parameter: 'stream_options.include_usage'.",
    );
    let s = create_ok(&with(r#""stream":true,"stream_options":{}"#));
    assert!(s.stream && s.include_obfuscation);
}

#[test]
fn initial_input_rules_by_placement() {
    let e = create(r#"{"environment":{"type":"none"},"agent":{"model":"m"}}"#).unwrap_err();
    assert_eq!(
        (e.param, e.message.as_str(), e.code.code()),
        (
            None,
            "conversation-only sessions currently require initial input",
            Some("invalid_request_error")
        )
    );
    // Both rules apply: conversation-only is reported.
    assert_error(
        create(r#"{"environment":{"type":"none"},"agent":{"model":"m"},"stream":true}"#),
        None,
        error_messages::CONVERSATION_ONLY_REQUIRES_INPUT,
    );
    assert_error(
        create(r#"{"environment":{"type":"openai_hosted"},"agent":{"model":"m"},"stream":true}"#),
        None,
        "streaming session creation requires initial input",
    );
    let self_hosted = r#"{"type":"self_hosted","workspace_directory":"/w"}"#;
    for fields in ["", r#","stream":true"#] {
        let body = format!(r#"{{"environment":{self_hosted},"agent":{{"model":"m"}}{fields}}}"#);
        assert_eq!(create_ok(&body).input, None, "{body}");
    }
    assert!(create(r#"{"environment":{"type":"openai_hosted"},"agent":{"model":"m"}}"#).is_ok());
}

#[test]
fn protocol_errors_come_before_the_input_rules() {
    let no_input = r#"{"environment":{"type":"none"},"agent":{"model":"m"},"review":"x"}"#;
    assert_error(
        create(no_input),
        Some("review"),
        "Invalid value: 'x'. Supported values are: 'none' and 'auto_review'.",
    );
    let conflict = r#"{"environment":{"type":"none"},"agent":{"model":"m","tools":[{"type":"tool_search"},{"type":"tool_search"}]}}"#;
    assert_error(create(conflict), None, "duplicate tool_search tool");
}

#[test]
fn agent_conflicts_come_after_every_other_member() {
    let tools = r#"[{"type":"tool_search"},{"type":"tool_search"}]"#;
    let schema = r#"{"format":{"type":"json_schema","schema":{"type":"array"}}}"#;
    // A later member's value error wins over the agent's conflict.
    assert_error(
        create(&format!(
            r#"{{"agent":{{"model":"m","tools":{tools}}},"environment":{{"type":"none"}},"input":"x","vault_ids":[1]}}"#
        )),
        Some("vault_ids[0]"),
        "Invalid type for 'vault_ids[0]': expected a string, but got an integer instead.",
    );
    // So do missing members and the stream_options rule.
    assert_error(
        create(&format!(
            r#"{{"agent":{{"model":"m","tools":{tools}}},"input":"x"}}"#
        )),
        Some("environment"),
        "Missing required parameter: 'environment'.",
    );
    assert_error(
        create(&format!(
            r#"{{"agent":{{"model":"m","tools":{tools}}},"environment":{{"type":"none"}},"input":"x","stream_options":{{}}}}"#
        )),
        Some("stream_options"),
        error_messages::STREAM_OPTIONS_REQUIRE_STREAM,
    );
    assert_error(
        create(&format!(
            r#"{{"agent":{{"model":"m","text":{schema}}},"environment":{{"type":"none"}},"input":"x"}}"#
        )),
        None,
        r#"agent.text.format.schema must have top-level type "object"; got "array""#,
    );
}

#[test]
fn x_agents_core_is_read_at_the_top_level() {
    let s = create_ok(&with(r#""x_agents_core":{"harness":"codex"}"#));
    assert_eq!(s.x_agents_core.harness, Some(HarnessId::Codex));
    assert_error(
        create(&with(r#""x_agents_core":{"harness":"gpt"}"#)),
        Some("x_agents_core.harness"),
        "Invalid value: 'gpt'. Supported values are: 'codex', 'claude_code', and 'minimax_code'.",
    );
    assert_eq!(
        create_ok(&with(r#""x_agents_core":null"#)).x_agents_core,
        Default::default()
    );
}
