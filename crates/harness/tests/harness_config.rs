//! `x_agents_core.harness_config`: each harness declares the members its adapter applies.

use crate::support;

use support::*;

fn config(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    match json_text(text) {
        serde_json::Value::Object(map) => Some(map),
        other => panic!("not an object: {other}"),
    }
}

#[test]
fn harness_config_table() {
    run(&[
        row("none", |s| s.harness_config = None, every(admit())),
        row(
            "an empty object",
            |s| s.harness_config = config("{}"),
            every(admit()),
        ),
        row(
            "claude effort",
            |s| s.harness_config = config(r#"{"effort": "max"}"#),
            [
                admit(),
                admit(),
                reject(
                    "x_agents_core.harness_config.effort",
                    "The harness does not support harness_config member 'effort'.",
                ),
            ],
        ),
        row(
            "an effort outside the list",
            |s| s.harness_config = config(r#"{"effort": "none"}"#),
            [
                admit(),
                reject(
                    "x_agents_core.harness_config.effort",
                    "The harness supports harness_config.effort values low, medium, high, xhigh, max.",
                ),
                reject(
                    "x_agents_core.harness_config.effort",
                    "The harness does not support harness_config member 'effort'.",
                ),
            ],
        ),
        row(
            "an effort that is not a string",
            |s| s.harness_config = config(r#"{"effort": 3}"#),
            [
                admit(),
                reject(
                    "x_agents_core.harness_config.effort",
                    "The harness supports harness_config.effort values low, medium, high, xhigh, max.",
                ),
                reject(
                    "x_agents_core.harness_config.effort",
                    "The harness does not support harness_config member 'effort'.",
                ),
            ],
        ),
        row(
            "a member the adapter does not apply, in document order",
            |s| s.harness_config = config(r#"{"effort": "low", "thinking": {"type": "adaptive"}}"#),
            [
                admit(),
                reject(
                    "x_agents_core.harness_config.thinking",
                    "The harness does not support harness_config member 'thinking'.",
                ),
                reject(
                    "x_agents_core.harness_config.effort",
                    "The harness does not support harness_config member 'effort'.",
                ),
            ],
        ),
    ]);
}

#[test]
fn a_blank_model_is_rejected_for_every_harness() {
    let blank = reject("agent.model", "model must be a nonempty model identifier");
    run(&[
        row("spaces", |s| s.model = "   ".into(), every(blank.clone())),
        row(
            "a tab and a newline",
            |s| s.model = "\t\n".into(),
            every(blank.clone()),
        ),
        row(
            "text around spaces",
            |s| s.model = " m ".into(),
            every(admit()),
        ),
    ]);
}
