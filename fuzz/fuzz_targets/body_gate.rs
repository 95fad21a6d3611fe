//! The JSON body gate (`switchboard_wire::BodyGate`): never panics, agrees with serde_json on
//! what is JSON, keeps what it accepts (numbers as spelled, member order) through a re-encode,
//! and refuses only with its documented 400/413 errors.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use switchboard_wire::BodyGate;
use switchboard_wire::body::parse_strict;

/// Small enough that inputs cross it, so the 413 rule is exercised too.
const SMALL_LIMIT: usize = 256;

fuzz_target!(|data: &[u8]| {
    let gate = BodyGate::default();
    let verdict = gate.parse(Some("application/json"), data);
    assert_eq!(
        verdict,
        gate.parse(Some("application/json; charset=utf-8"), data)
    );
    match &verdict {
        Ok(map) => {
            // An accepted body is JSON serde_json reads too, and re-encoding it gives the
            // same object back through the gate (what the store keeps is what was sent).
            if let Ok(text) = std::str::from_utf8(data) {
                if !text.trim_matches([' ', '\t', '\n', '\r']).is_empty() {
                    assert!(
                        serde_json::from_str::<Value>(text).is_ok(),
                        "gate accepted non-JSON"
                    );
                }
            }
            let again = serde_json::to_string(map).unwrap_or_default();
            assert_eq!(
                gate.parse(Some("application/json"), again.as_bytes())
                    .as_ref(),
                Ok(map)
            );
        }
        Err(e) => {
            assert_eq!(e.status, 400, "only the size rule is not a 400: {e:?}");
            assert!(!e.message.is_empty());
            // A refused body that serde_json reads as an object must hold a repeated key or
            // serde_json's private raw-value key (which serde_json reads back as another value).
            if let Ok(Value::Object(_)) = serde_json::from_slice::<Value>(data) {
                let reserved = e.message.contains("'$serde_json::private::RawValue'")
                    && e.message.contains("is reserved and not supported");
                assert!(
                    e.message.contains("duplicate JSON key") || reserved,
                    "{e:?}"
                );
                assert!(matches!(
                    parse_strict(std::str::from_utf8(data).unwrap_or_default()),
                    Err(_)
                ));
            }
        }
    }
    // Without the JSON content type only the empty body passes.
    let untyped = gate.parse(Some("text/plain"), data);
    assert_eq!(untyped.is_ok(), data.is_empty());
    // Over the limit: 413, checked after the content type and before anything else.
    let small = BodyGate { limit: SMALL_LIMIT }.parse(Some("application/json"), data);
    if data.len() > SMALL_LIMIT {
        assert_eq!(small.map_err(|e| e.status), Err(413));
    } else {
        assert_eq!(small, verdict);
    }
});
