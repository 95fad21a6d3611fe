//! The `minimax_code` profile on the stand-in for `mcode` (MiniMax Code cannot be installed
//! here): the profile writes `config.yaml` with the Session's provider as `custom_provider`,
//! the launcher starts codex-acp from exactly that file, and a function round trip runs through
//! it. Without a binary the harness is advertised unavailable with the reason, and refused.

use crate::support;

use std::time::Duration;

use support::*;
use switchboard_acp::{AcpAdapter, CODEX_ACP, MINIMAX_CODE};
use switchboard_protocol::{Adapter, AdapterError, HarnessState, PrepareRequest};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_minimax_profile_configures_the_model_through_config_yaml() {
    let Some(codex_acp) = agent_binary(
        "the_minimax_profile_configures_the_model_through_config_yaml",
        &CODEX_ACP,
    ) else {
        return;
    };
    let bin = tempfile::tempdir().unwrap();
    let mcode = standin_mcode(bin.path(), &codex_acp);
    let adapter =
        AcpAdapter::new(MINIMAX_CODE, Some(mcode)).with_turn_deadline(Duration::from_secs(45));
    let advertised = adapter.advertise().await;
    assert_eq!(advertised.state, HarnessState::Available, "{advertised:?}");
    assert_eq!(advertised.version.as_deref(), Some("0.4.12"));

    let model = mock_model(None).await;
    let config = configuration(&model.base_url(), vec![get_weather()]);
    let (state, executor) = prepare_fresh(&adapter, config, "acp").await;

    let written: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(state.path().join("agent-data/config.yaml")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        written,
        serde_json::json!({
            "custom_provider": {"switchboard": {
                "kind": "custom",
                "api": "openai-responses",
                "options": {"baseURL": format!("{}/v1", model.base_url()), "apiKey": "sk-test-key"},
                "models": {MODEL: {"name": MODEL, "contextWindow": 200000, "maxTokens": 8192}},
            }},
            "features": {"webSearch": false},
        })
    );

    weather_turn_acp(executor.as_ref(), 1, "Weather in Paris?").await;
    let journal = model.journal();
    let request = journal
        .iter()
        .find(|r| r["path"] == "/v1/responses")
        .unwrap();
    assert_eq!(request["headers"]["authorization"], "Bearer sk-test-key");
    assert!(request.to_string().contains("SWITCHBOARD-INSTRUCTIONS"));
}

#[tokio::test]
async fn without_mcode_the_harness_is_unavailable_and_refused() {
    let adapter = AcpAdapter::new(MINIMAX_CODE, None);
    let advertised = adapter.advertise().await;
    assert!(!advertised.available);
    assert!(
        matches!(&advertised.state, HarnessState::Failed { reason } if reason.contains("SWITCHBOARD_MINIMAX_CODE_BIN")),
        "{advertised:?}"
    );
    let state = tempfile::tempdir().unwrap();
    let request = PrepareRequest {
        session_id: "sess_test".into(),
        configuration: configuration("http://127.0.0.1:9", vec![]),
        state_dir: state.path().to_owned(),
        placement: None,
    };
    let refused = adapter.prepare(request).await.err();
    assert!(
        matches!(refused, Some(AdapterError::Unavailable(_))),
        "{refused:?}"
    );
}
