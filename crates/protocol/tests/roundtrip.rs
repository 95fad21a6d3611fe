//! Every message survives encode → decode unchanged, with its exact JSON numbers.

use serde_json::json;
use switchboard_protocol::messages::*;
use switchboard_protocol::*;

fn configuration() -> SessionConfiguration {
    SessionConfiguration {
        harness: HarnessId::Codex,
        model: "gpt-test".into(),
        instructions: Some("Be brief.".into()),
        model_provider: ModelProviderConfig {
            protocol: ProviderProtocol::Responses,
            base_url: "http://127.0.0.1:9/v1".into(),
            api_key: "sk-secret".into(),
            context_window: Some(200_000),
            max_output_tokens: None,
        },
        function_tools: vec![FunctionToolSpec {
            name: "get_weather".into(),
            description: "Weather".into(),
            parameters: serde_json::from_str(
                r#"{"type":"object","properties":{"t":{"type":"number","maximum":1.000,"minimum":1E2}}}"#,
            )
            .unwrap(),
            defer_loading: true,
        }],
        tool_search: true,
        execution_controls: ExecutionControls {
            output_format: Some(OutputFormat::json_schema(
                serde_json::from_str(r#"{"type":"object","properties":{"p":{"multipleOf":0.10}}}"#)
                    .unwrap(),
            )),
            web_search: Some(WebSearchControl {
                mode: WebSearchMode::Live,
                context_size: ContextSize::High,
                allowed_domains: Some(vec![]),
                location: Some(WebSearchLocation {
                    city: Some("Paris".into()),
                    ..Default::default()
                }),
            }),
            programmatic_tool_calling: Some(ProgrammaticToolCallingControl { enabled: false }),
            text_verbosity: Some(Verbosity::Low),
            reasoning: Some(ReasoningControl { effort: Some(ReasoningEffort::High), summary: None }),
            service_tier: Some(ServiceTier::Flex),
            subagents: None,
        },
        mcp_servers: vec![],
        mcp_stdio_servers: vec![],
        mcp_environment_servers: vec![],
        harness_config: None,
        workspace: None,
    }
}

fn core_messages() -> Vec<CoreToRuntime> {
    vec![
        Welcome {
            version: PROTOCOL_VERSION.into(),
        }
        .into(),
        HelloRefused {
            code: "incompatible_version".into(),
            message: "m".into(),
            supported_version: PROTOCOL_VERSION.into(),
        }
        .into(),
        ExecutionPrepare {
            session_id: "s1".into(),
            configuration: configuration(),
        }
        .into(),
        ExecutionPrepare {
            session_id: "s2".into(),
            configuration: SessionConfiguration {
                execution_controls: ExecutionControls::default(),
                ..configuration()
            },
        }
        .into(),
        ExecutionStart {
            session_id: "s1".into(),
            run_id: "r1".into(),
            turn_id: "t1".into(),
            traceparent: Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into()),
            input: vec![
                InputPart::InputText { text: "hi".into() },
                InputPart::InputImage {
                    image_url: "data:image/png;base64,AA==".into(),
                },
            ],
        }
        .into(),
        ExecutionRelease {
            session_id: "s1".into(),
        }
        .into(),
        PromptSteer {
            input_id: "i1".into(),
            input: vec![InputPart::InputText {
                text: "more".into(),
            }],
        }
        .into(),
        PromptCancel {}.into(),
        FunctionResult {
            delivery_id: "d1".into(),
            call_id: "c1".into(),
            success: true,
            output: Some(FunctionOutput::Text("ok".into())),
            error: None,
        }
        .into(),
        FunctionResult {
            delivery_id: "d2".into(),
            call_id: "c2".into(),
            success: false,
            output: Some(FunctionOutput::Parts(vec![InputPart::InputText {
                text: "a".into(),
            }])),
            error: Some("boom".into()),
        }
        .into(),
    ]
}

fn runtime_messages() -> Vec<RuntimeToCore> {
    let usage = Usage {
        input_tokens: 10,
        cached_input_tokens: 1,
        output_tokens: 5,
        reasoning_output_tokens: 0,
        total_tokens: 15,
    };
    vec![
        Hello::current("rt-1", "0.1.0").into(),
        Heartbeat {
            supported_harnesses: vec![HarnessAdvertisement {
                harness: HarnessId::Codex,
                available: true,
                version: Some("0.171.0".into()),
                state: HarnessState::Available,
                capabilities: Capabilities {
                    streaming: true,
                    function_tools: true,
                    ..Default::default()
                },
            }],
        }
        .into(),
        PreparationStatus {
            session_id: "s1".into(),
            state: PreparationState::Failed,
            error_code: Some("harness_unavailable".into()),
            error: Some("no binary".into()),
        }
        .into(),
        OutputMessage {
            id: "m1".into(),
            status: MessageStatus::InProgress,
            phase: None,
            text: "".into(),
        }
        .into(),
        OutputMessage {
            id: "m1".into(),
            status: MessageStatus::Completed,
            phase: Some(MessagePhase::FinalAnswer),
            text: "{\"a\":1.50}".into(),
        }
        .into(),
        Delta {
            item_id: "m1".into(),
            delta: "he".into(),
        }
        .into(),
        Reasoning {
            item_id: "r".into(),
            text: "thinking".into(),
        }
        .into(),
        CommandExecution {
            item_id: "x".into(),
            command: "ls".into(),
            status: CommandStatus::Completed,
            exit_code: Some(0),
            output: Some("a\n".into()),
            cwd: Some("/workspace".into()),
            duration_ms: Some(12),
        }
        .into(),
        WebSearchCall {
            item_id: "ws_1".into(),
            status: WebSearchStatus::InProgress,
            action: None,
        }
        .into(),
        WebSearchCall {
            item_id: "ws_1".into(),
            status: WebSearchStatus::Completed,
            action: Some(WebSearchAction::Search {
                query: Some("weather in Paris".into()),
                queries: Some(vec!["weather in Paris".into(), "Paris forecast".into()]),
            }),
        }
        .into(),
        WebSearchCall {
            item_id: "ws_2".into(),
            status: WebSearchStatus::Incomplete,
            action: Some(WebSearchAction::OpenPage {
                url: Some("https://example.com/".into()),
            }),
        }
        .into(),
        WebSearchCall {
            item_id: "ws_3".into(),
            status: WebSearchStatus::Completed,
            action: Some(WebSearchAction::FindInPage {
                url: None,
                pattern: Some("21°C".into()),
            }),
        }
        .into(),
        WebSearchCall {
            item_id: "ws_4".into(),
            status: WebSearchStatus::Completed,
            action: Some(WebSearchAction::Other),
        }
        .into(),
        usage.into(),
        FunctionCall {
            call_id: "c1".into(),
            name: "f".into(),
            arguments: r#"{"x":1.000}"#.into(),
        }
        .into(),
        CallAbandoned {
            call_id: "c1".into(),
        }
        .into(),
        FunctionResultApplied {
            call_id: "c1".into(),
        }
        .into(),
        InteractionDecisionAck {
            delivery_id: "d1".into(),
            applied: true,
            error_code: None,
            error: None,
        }
        .into(),
        PromptSteerAck {
            input_id: "i1".into(),
            accepted: false,
            error_code: Some("x".into()),
            error: None,
        }
        .into(),
        ErrorEvent {
            code: "server_error".into(),
            message: "m".into(),
            http_status: None,
        }
        .into(),
        Done {
            outcome: TurnOutcome::Completed,
            usage: Some(usage),
        }
        .into(),
        Done {
            outcome: TurnOutcome::Cancelled,
            usage: None,
        }
        .into(),
        ProtocolError {
            frame_type: Some("bogus".into()),
            error_code: "unknown_type".into(),
            message: "m".into(),
        }
        .into(),
    ]
}

#[test]
fn every_core_message_round_trips() {
    for (i, message) in core_messages().into_iter().enumerate() {
        let envelope = Envelope::new(Some(format!("id-{i}")), message);
        let text = envelope.to_json().unwrap();
        let back = Envelope::<CoreToRuntime>::from_json(&text).unwrap();
        assert_eq!(back, envelope, "{text}");
        assert_eq!(back.to_json().unwrap(), text);
    }
}

#[test]
fn every_runtime_message_round_trips() {
    for message in runtime_messages() {
        let envelope = Envelope::new(None, message);
        let text = envelope.to_json().unwrap();
        let back = Envelope::<RuntimeToCore>::from_json(&text).unwrap();
        assert_eq!(back, envelope, "{text}");
        assert_eq!(back.to_json().unwrap(), text);
    }
}

#[test]
fn schema_numbers_and_key_order_are_kept_exactly() {
    let text = Envelope::new(
        Some("s1".into()),
        CoreToRuntime::from(ExecutionPrepare {
            session_id: "s1".into(),
            configuration: configuration(),
        }),
    )
    .to_json()
    .unwrap();
    assert!(
        text.contains(r#""maximum":1.000,"minimum":1e+2"#)
            || text.contains(r#""maximum":1.000,"minimum":1E2"#),
        "{text}"
    );
    assert!(text.contains(r#""multipleOf":0.10"#), "{text}");
}

#[test]
fn frame_shape_is_type_id_payload() {
    let text = Envelope::new(Some("r1".into()), CoreToRuntime::from(PromptCancel {}))
        .to_json()
        .unwrap();
    assert_eq!(text, r#"{"type":"prompt_cancel","id":"r1","payload":{}}"#);
    let heartbeat = Envelope::new(
        None,
        RuntimeToCore::from(Heartbeat {
            supported_harnesses: vec![],
        }),
    )
    .to_json()
    .unwrap();
    assert_eq!(
        heartbeat,
        r#"{"type":"heartbeat","payload":{"supported_harnesses":[]}}"#
    );
}

#[test]
fn absent_execution_controls_are_omitted_not_null() {
    let value = serde_json::to_value(ExecutionControls::default()).unwrap();
    assert_eq!(value, json!({}));
}

#[test]
fn api_key_never_appears_in_debug_output() {
    let debug = format!("{:?}", configuration());
    assert!(!debug.contains("sk-secret"), "{debug}");
    assert!(debug.contains("<redacted>"));
}

#[test]
fn function_result_content_appends_error_as_final_text_part() {
    let result = FunctionResultContent {
        success: false,
        output: Some(FunctionOutput::Parts(vec![
            InputPart::InputText { text: "a".into() },
            InputPart::InputImage {
                image_url: "data:x".into(),
            },
        ])),
        error: Some("failed".into()),
    };
    assert_eq!(
        result.parts(),
        vec![
            ResultPart::Text("a".into()),
            ResultPart::ImageUrl("data:x".into()),
            ResultPart::Text("failed".into())
        ]
    );
    let text_only = FunctionResultContent {
        success: true,
        output: Some(FunctionOutput::Text("x".into())),
        error: None,
    };
    assert_eq!(text_only.parts(), vec![ResultPart::Text("x".into())]);
}

#[test]
fn adapter_events_map_to_frames() {
    let failed = AdapterEvent::Failed {
        code: "server_error".into(),
        message: "m".into(),
        http_status: None,
        usage: None,
    };
    assert!(failed.is_terminal());
    let frames = failed.into_messages();
    assert!(matches!(frames[0], RuntimeToCore::Error(_)));
    assert!(matches!(
        frames[1],
        RuntimeToCore::Done(Done {
            outcome: TurnOutcome::Failed,
            ..
        })
    ));

    let ack = Receipt::Unconfirmed {
        reason: "timeout".into(),
    }
    .into_ack("d9");
    assert!(!ack.applied);
    assert_eq!(
        ack.error_code.as_deref(),
        Some("function_result_unconfirmed")
    );
    assert!(Receipt::Confirmed.into_ack("d9").applied);

    // A confirmed receipt travels as the ack only; a late application has a frame of its own.
    let applied = AdapterEvent::FunctionResultApplied {
        call_id: "c1".into(),
    };
    assert!(applied.into_messages().is_empty());
    let late = AdapterEvent::LateFunctionResultApplied {
        call_id: "c1".into(),
    };
    assert_eq!(
        late.into_messages(),
        vec![RuntimeToCore::FunctionResultApplied(
            FunctionResultApplied {
                call_id: "c1".into()
            }
        )]
    );
}
