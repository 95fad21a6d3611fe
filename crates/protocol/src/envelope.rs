//! The frame every message travels in: `{"type": …, "id": …, "payload": {…}}`.
//!
//! Decoding is two-step on purpose. The outer frame is read first with the payload kept as raw
//! JSON text; the `type` then selects the one payload struct to decode that text into. This keeps
//! errors precise ("unknown message type", "bad payload for execution_start: …") and means a
//! payload is parsed straight from its text, never replayed through serde's internal buffer,
//! which would turn `arbitrary_precision` numbers into maps.
//!
//! `id` names what the frame is about: the Session for preparation frames, the Run for output,
//! cancel, steer and function frames, the delivery for decisions. Handshake and heartbeat frames
//! carry none.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A message together with its frame `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope<M> {
    pub id: Option<String>,
    pub message: M,
}

/// A direction's message set: maps each variant to its wire `type` and payload.
pub trait MessageSet: Sized {
    /// The wire `type` of this message.
    fn type_name(&self) -> &'static str;
    /// Serializes the payload alone.
    fn payload_json(&self) -> Result<Box<RawValue>, serde_json::Error>;
    /// Decodes the payload text of a frame whose `type` is `type_name`.
    fn decode(type_name: &str, payload: &str) -> Result<Self, DecodeError>;
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    #[error("malformed frame: {0}")]
    Frame(String),
    #[error("unknown message type `{0}`")]
    UnknownType(String),
    #[error("invalid `{type_name}` payload: {detail}")]
    Payload { type_name: String, detail: String },
}

impl DecodeError {
    /// The `error_code` a `protocol_error` frame carries for this failure.
    pub fn code(&self) -> &'static str {
        match self {
            DecodeError::Frame(_) => "bad_frame",
            DecodeError::UnknownType(_) => "unknown_type",
            DecodeError::Payload { .. } => "bad_payload",
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFrame<'a> {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(borrow)]
    payload: &'a RawValue,
}

#[derive(Serialize)]
struct OutFrame<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    payload: &'a RawValue,
}

impl<M: MessageSet> Envelope<M> {
    pub fn new(id: Option<String>, message: M) -> Self {
        Envelope { id, message }
    }

    /// Encodes the frame as one line of JSON text.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        let payload = self.message.payload_json()?;
        serde_json::to_string(&OutFrame {
            kind: self.message.type_name(),
            id: self.id.as_deref(),
            payload: &payload,
        })
    }

    /// Decodes one frame strictly.
    pub fn from_json(text: &str) -> Result<Self, DecodeError> {
        let raw: RawFrame<'_> =
            serde_json::from_str(text).map_err(|e| DecodeError::Frame(e.to_string()))?;
        let message = M::decode(&raw.kind, raw.payload.get())?;
        Ok(Envelope {
            id: raw.id,
            message,
        })
    }
}

/// Decodes a payload struct from its text, labelling errors with the message type.
pub(crate) fn decode_payload<T: serde::de::DeserializeOwned>(
    type_name: &str,
    payload: &str,
) -> Result<T, DecodeError> {
    serde_json::from_str(payload).map_err(|e| DecodeError::Payload {
        type_name: type_name.to_owned(),
        detail: e.to_string(),
    })
}
