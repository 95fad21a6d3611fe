//! The integration tests of `protocol`, one behaviour per module, linked as one test binary
//! (one binary per crate keeps a fresh build small: every test binary links the whole
//! dependency tree again).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod handshake;
mod roundtrip;
mod strict_decoding;
mod wire_snapshot;
