//! The binary64 rule: a number changes when parsing it to the nearest binary64 and printing
//! that back in shortest round-trip form gives a different numeric value, or overflows.

use serde_json::Value;
use switchboard_harness::binary64::{lossless, number_lossless};

fn number(text: &str) -> serde_json::Number {
    match serde_json::from_str::<Value>(text).expect("JSON number") {
        Value::Number(n) => n,
        other => panic!("not a number: {other}"),
    }
}

#[test]
fn numbers_keep_their_source_digits() {
    // Guard: without `arbitrary_precision` every other test here would test f64, not digits.
    assert_eq!(
        serde_json::from_str::<Value>("0.60").unwrap().to_string(),
        "0.60"
    );
}

#[test]
fn number_table() {
    let survives = [
        "0",
        "-0",
        "-0.0",
        "0.0",
        "1",
        "1.0",
        "1.50",
        "100",
        "1E2",
        "1e+2",
        "10e-1",
        "0.1",
        "0.30000000000000004",
        "9007199254740992",
        "-9007199254740992",
        "1e22",
        "1e23",
        "5e-324",
        "2.2250738585072014e-308",
        "1.7976931348623157e308",
        "123.456",
        "0e400",
    ];
    let changes = [
        "9007199254740993",
        "-9007199254740993",
        "1e400",
        "-1e400",
        "1.7976931348623159e308",
        "123456789012345678901234567890",
        "2.5e-324",
        "1e-400",
        "0.3000000000000000444",
        "0.1000000000000000000001",
        "18446744073709551617",
    ];
    let mut wrong = Vec::new();
    for text in survives {
        if !number_lossless(&number(text)) {
            wrong.push(format!("{text} should survive"));
        }
    }
    for text in changes {
        if number_lossless(&number(text)) {
            wrong.push(format!("{text} should change"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn documents_are_checked_everywhere() {
    let doc = |t: &str| serde_json::from_str::<Value>(t).unwrap();
    assert!(lossless(&doc(
        r#"{"type":"object","a":[1,2.5,{"b":null,"c":"1e400","d":true}]}"#
    )));
    assert!(!lossless(&doc(
        r#"{"type":"object","a":[1,2.5,{"b":[[9007199254740993]]}]}"#
    )));
    assert!(!lossless(&doc("1e400")));
    assert!(lossless(&doc(r#""strings are not numbers: 1e400""#)));
}
