//! Core–Runtime frame decoding in both directions: any text gets a frame or a typed error,
//! never a panic, and a decoded frame re-encodes to text that decodes to the same frame (and
//! re-encodes to the same text: encoding is a fixed point).
#![no_main]

use libfuzzer_sys::fuzz_target;
use switchboard_protocol::envelope::{Envelope, MessageSet};
use switchboard_protocol::messages::{CoreToRuntime, RuntimeToCore};

fn round_trip<M: MessageSet + PartialEq + std::fmt::Debug>(text: &str) {
    match Envelope::<M>::from_json(text) {
        Ok(frame) => {
            let encoded = frame
                .to_json()
                .unwrap_or_else(|e| panic!("{frame:?} encodes: {e}"));
            let again = Envelope::<M>::from_json(&encoded)
                .unwrap_or_else(|e| panic!("re-encoded {encoded} refused: {e}"));
            assert_eq!(again, frame, "re-encoded {encoded}");
            assert_eq!(again.to_json().ok().as_deref(), Some(encoded.as_str()));
        }
        Err(e) => {
            let _ = (e.code(), e.to_string());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    round_trip::<CoreToRuntime>(text);
    round_trip::<RuntimeToCore>(text);
});
