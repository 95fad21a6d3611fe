//! Session create and update bodies: every body after the gate gets a deterministic verdict
//! (retries re-parse the same body), never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use switchboard_execution::{parse_session_create, parse_session_update};
use switchboard_fuzz::{check_verdict, gated};

fuzz_target!(|data: &[u8]| {
    let Some(body) = gated(data) else { return };
    check_verdict(&parse_session_create(&body), &parse_session_create(&body));
    check_verdict(&parse_session_update(&body), &parse_session_update(&body));
});
