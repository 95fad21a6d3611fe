//! Issue 18: a warm codex process bound to a Session carries exactly that Session's
//! configuration. Two Sessions with different functions, instructions and output schemas are
//! bound in turn to warm processes of one pool (same provider, so the same process-wide
//! settings); the mock model's journal shows each Turn's request with its own Session's tools,
//! instructions and schema, and nothing of the other's.

use crate::support;

use serde_json::{Value, json};
use support::mcp::{model_requests, offered, run};
use support::warm::{runtime_warm, text_model, until_bound, until_warmed};
use support::{codex_binary, configuration, prepare};
use switchboard_mock_model::MockModel;
use switchboard_protocol::configuration::OutputFormat;
use switchboard_protocol::messages::TurnOutcome;
use switchboard_protocol::{FunctionToolSpec, RuntimeToCore, SessionConfiguration};

fn tool(name: &str) -> FunctionToolSpec {
    FunctionToolSpec {
        name: name.into(),
        description: format!("The {name} function"),
        parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        defer_loading: false,
    }
}

fn schema(field: &str) -> Value {
    json!({
        "type": "object",
        "properties": {field: {"type": "string"}},
        "required": [field],
        "additionalProperties": false,
    })
}

fn session(base_url: &str, name: &str) -> SessionConfiguration {
    let mut config = configuration(base_url, vec![tool(&format!("tool_{name}"))]);
    config.instructions = Some(format!("INSTRUCTIONS-OF-{name}"));
    config.execution_controls.output_format =
        Some(OutputFormat::json_schema(schema(&format!("field_{name}"))));
    config
}

fn completed(frames: &[RuntimeToCore]) {
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => assert_eq!(done.outcome, TurnOutcome::Completed),
        other => panic!("{other:?}"),
    }
}

/// The model request of the Turn whose input holds `text`.
fn request_with(model: &MockModel, text: &str) -> Value {
    model_requests(model)
        .into_iter()
        .find(|body| body["input"].to_string().contains(text))
        .unwrap_or_else(|| panic!("no model request carried {text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warm_processes_carry_their_own_sessions_configuration() {
    let Some(binary) = codex_binary("warm_processes_carry_their_own_sessions_configuration") else {
        return;
    };
    let model = text_model(r#"{"a":"b"}"#).await;
    let state = support::scratch("warm-config-");
    let mut runtime = runtime_warm(binary, state.path(), 8, 1);
    let mut notices = runtime.notices();
    let base = model.base_url();

    // The first Session of these settings launches its own process; the pool then warms one.
    prepare(&mut runtime, "sess_primer", session(&base, "primer")).await;
    let first = until_warmed(&mut notices).await;
    prepare(&mut runtime, "sess_alpha", session(&base, "alpha")).await;
    assert_eq!(until_bound(&mut notices, "sess_alpha").await, first);
    let second = until_warmed(&mut notices).await;
    assert_ne!(second, first);
    prepare(&mut runtime, "sess_beta", session(&base, "beta")).await;
    assert_eq!(until_bound(&mut notices, "sess_beta").await, second);

    completed(&run(&mut runtime, "sess_alpha", "run_alpha", "turn-of-alpha").await);
    completed(&run(&mut runtime, "sess_beta", "run_beta", "turn-of-beta").await);

    for (own, other) in [("alpha", "beta"), ("beta", "alpha")] {
        let request = request_with(&model, &format!("turn-of-{own}"));
        let tools = offered(&request);
        assert!(tools.contains(&format!("tool_{own}")), "{own}: {tools:?}");
        for foreign in [other, "primer"] {
            assert!(
                !tools.contains(&format!("tool_{foreign}")),
                "{own}: {tools:?}"
            );
        }
        let text = request.to_string();
        assert!(
            text.contains(&format!("INSTRUCTIONS-OF-{own}")),
            "{own}: {text}"
        );
        assert!(
            !text.contains(&format!("INSTRUCTIONS-OF-{other}")),
            "{own}: {text}"
        );
        assert!(!text.contains("INSTRUCTIONS-OF-primer"), "{own}: {text}");
        assert!(!text.contains(&format!("turn-of-{other}")), "{own}: {text}");
        let format = &request["text"]["format"];
        assert_eq!(format["type"], "json_schema", "{own}: {format}");
        assert_eq!(
            format["schema"]["required"],
            json!([format!("field_{own}")]),
            "{own}: {format}"
        );
    }
    runtime.shutdown().await;
}
