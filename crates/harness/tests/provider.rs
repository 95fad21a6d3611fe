//! Model provider bundles: the protocols each harness drives, and MiniMax Code's need for
//! positive token limits.

use crate::support;

use support::*;
use switchboard_execution::*;
use switchboard_harness::{declaration, validate_model_provider};

const PROTOCOL: &str = "selected harness does not support this model provider protocol";
const LIMITS: &str =
    "selected harness requires positive model context_window and max_output_tokens";
const PARAM: &str = "x_agents_core.model_provider";

#[test]
fn protocol_table() {
    let no = || reject(PARAM, PROTOCOL);
    run(&[
        row(
            "responses",
            |s| s.model_provider = Some(provider(ProviderProtocol::Responses)),
            [admit(), no(), admit()],
        ),
        row(
            "anthropic",
            |s| s.model_provider = Some(provider(ProviderProtocol::Anthropic)),
            [no(), admit(), admit()],
        ),
        row(
            "chat_completions",
            |s| s.model_provider = Some(provider(ProviderProtocol::ChatCompletions)),
            [no(), no(), admit()],
        ),
        row(
            "no bundle in the snapshot",
            |s| s.model_provider = None,
            every(admit()),
        ),
    ]);
}

#[test]
fn token_limit_table() {
    let limits = || reject(PARAM, LIMITS);
    fn with(s: &mut SessionSnapshot, context_window: Option<u64>, max_output_tokens: Option<u64>) {
        let p = s.model_provider.as_mut().expect("baseline bundle");
        p.context_window = context_window;
        p.max_output_tokens = max_output_tokens;
    }
    run(&[
        row(
            "both positive",
            |s| with(s, Some(1), Some(1)),
            every(admit()),
        ),
        row(
            "both missing",
            |s| with(s, None, None),
            [admit(), admit(), limits()],
        ),
        row(
            "no context_window",
            |s| with(s, None, Some(4096)),
            [admit(), admit(), limits()],
        ),
        row(
            "no max_output_tokens",
            |s| with(s, Some(128_000), None),
            [admit(), admit(), limits()],
        ),
        row(
            "zero context_window",
            |s| with(s, Some(0), Some(4096)),
            [admit(), admit(), limits()],
        ),
        row(
            "zero max_output_tokens",
            |s| with(s, Some(128_000), Some(0)),
            [admit(), admit(), limits()],
        ),
    ]);
}

#[test]
fn every_minimax_protocol_needs_limits() {
    let decl = declaration(HarnessId::MinimaxCode);
    for protocol in [
        ProviderProtocol::Anthropic,
        ProviderProtocol::Responses,
        ProviderProtocol::ChatCompletions,
    ] {
        let bundle = ModelProvider {
            context_window: None,
            ..provider(protocol)
        };
        let err = validate_model_provider(decl, &bundle).unwrap_err();
        assert_eq!(
            (err.param.as_deref(), err.message.as_str()),
            (Some(PARAM), LIMITS)
        );
    }
}

#[test]
fn provider_checks_come_last() {
    run(&[row(
        "service tier and protocol both wrong",
        |s| {
            s.service_tier = ServiceTier::Flex;
            s.model_provider = Some(provider(ProviderProtocol::ChatCompletions));
        },
        every(reject(
            "agent.service_tier",
            "The harness does not support service_tier 'flex'.",
        )),
    )]);
}
