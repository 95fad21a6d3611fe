//! The version handshake: exact match welcomes, anything else is refused with a clear error.

use switchboard_protocol::handshake::Hello;
use switchboard_protocol::{CoreToRuntime, Envelope, PROTOCOL_VERSION, RuntimeToCore};

#[test]
fn matching_version_is_welcomed() {
    let hello = Hello::current("rt-1", "0.1.0");
    let welcome = hello.answer().unwrap();
    assert_eq!(welcome.version, PROTOCOL_VERSION);
}

#[test]
fn any_other_version_is_refused() {
    for version in ["0.9.0", "1.0.0", "1.0.1", "1.1", "", "1.1.0 "] {
        let hello = Hello {
            version: version.into(),
            runtime_id: "rt-1".into(),
            runtime_version: "x".into(),
        };
        let refusal = hello.answer().unwrap_err();
        assert_eq!(refusal.code, "incompatible_version");
        assert_eq!(refusal.supported_version, PROTOCOL_VERSION);
        assert!(
            refusal.message.contains(PROTOCOL_VERSION),
            "{}",
            refusal.message
        );
        assert!(refusal.message.contains("rt-1"), "{}", refusal.message);
        // The refusal travels as a frame of its own.
        let text = Envelope::new(None, CoreToRuntime::from(refusal))
            .to_json()
            .unwrap();
        assert!(text.starts_with(r#"{"type":"hello_refused""#), "{text}");
    }
}

#[test]
fn hello_frame_decodes_strictly() {
    let ok = format!(
        r#"{{"type":"hello","payload":{{"version":"{PROTOCOL_VERSION}","runtime_id":"r","runtime_version":"v"}}}}"#
    );
    assert!(Envelope::<RuntimeToCore>::from_json(&ok).is_ok());
    let extra = ok.replace(r#""runtime_id":"r""#, r#""runtime_id":"r","token":"x""#);
    assert!(Envelope::<RuntimeToCore>::from_json(&extra).is_err());
}
