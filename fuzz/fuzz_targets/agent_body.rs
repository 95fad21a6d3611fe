//! Agent create and update bodies, and the same members as a Session's inline `agent`: every
//! body after the gate gets a deterministic verdict, never a panic; a created Agent's public
//! fields, sent back as a create body, make the same Agent. Two read forms differ from the
//! write form by contract, and are undone first: a disabled `multi_agent` reads back
//! `max_concurrent_subagents: null` (the SDK's `MultiAgentConfigParam` types it `int`), and the
//! provider's `api_key` is write-only (a client re-sending an Agent supplies it again).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use switchboard_execution::public::agent_public_fields;
use switchboard_execution::{parse_agent_create, parse_agent_update, parse_inline_agent};
use switchboard_fuzz::{check_verdict, gated};

fuzz_target!(|data: &[u8]| {
    let Some(body) = gated(data) else { return };
    let created = parse_agent_create(&body);
    check_verdict(&created, &parse_agent_create(&body));
    check_verdict(&parse_agent_update(&body), &parse_agent_update(&body));
    let inline = Value::Object(body.clone());
    check_verdict(
        &parse_inline_agent(&inline, "agent"),
        &parse_inline_agent(&inline, "agent"),
    );
    if let Ok(config) = created {
        let public = as_create_body(agent_public_fields(&config), &body);
        match parse_agent_create(&public) {
            Ok(again) => assert_eq!(again, config, "public fields made another Agent"),
            Err(e) => panic!("public fields {public:?} refused: {e:?}"),
        }
    }
});

fn as_create_body(mut public: Map<String, Value>, sent: &Map<String, Value>) -> Map<String, Value> {
    if let Some(Value::Object(multi)) = public.get_mut("multi_agent") {
        if multi.get("max_concurrent_subagents") == Some(&Value::Null) {
            multi.remove("max_concurrent_subagents");
        }
    }
    let key = sent
        .get("x_agents_core")
        .and_then(|x| x.get("model_provider"))
        .and_then(|p| p.get("api_key"));
    let provider = public
        .get_mut("x_agents_core")
        .and_then(|x| x.get_mut("model_provider"))
        .and_then(Value::as_object_mut);
    if let (Some(key), Some(provider)) = (key, provider) {
        provider.insert("api_key".into(), key.clone());
    }
    public
}
