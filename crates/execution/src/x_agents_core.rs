//! `x_agents_core`: Switchboard's extension object, sent by SDK users through `extra_body`.
//!
//! `{harness, model_provider: {protocol, base_url, api_key, context_window?,
//! max_output_tokens?}, harness_config?}`, accepted at the top level of Agent create/update
//! (saved on the Agent) and of Session create (overriding the saved values field by field, see
//! [`XAgentsCore::overridden_by`]). Every member is optional and null means "not set", so a
//! Session can override one member alone; `x_agents_core: null` is the empty object.
//!
//! The provider rules (core-contracts §7.3): `base_url` is the provider's API root as its own SDK
//! takes it, an absolute `https` URL (or `http` on a loopback host: 127.0.0.0/8, ::1,
//! localhost) without credentials, query or fragment; `api_key` is nonempty, at most 16 KiB, and
//! free of NUL, CR and LF (it becomes an HTTP header); token limits are positive integers with
//! `max_output_tokens <= context_window` when both are set. `harness_config` is an object whose
//! shape each harness declares; it is checked at Session admission, not here. The key never
//! appears in a message.

use serde_json::Value;
use url::Host;

use crate::declarations::{HarnessId, ModelProvider, ProviderProtocol, XAgentsCore};
use crate::error::ValidationError;
use crate::error_messages::{self, kind, rule};
use crate::object_reader::ObjectReader;
use crate::scalar;

const MEMBERS: &[&str] = &["harness", "model_provider", "harness_config"];
const PROVIDER_MEMBERS: &[&str] = &[
    "protocol",
    "base_url",
    "api_key",
    "context_window",
    "max_output_tokens",
];

const HARNESSES: &[(&str, HarnessId)] = &[
    ("codex", HarnessId::Codex),
    ("claude_code", HarnessId::ClaudeCode),
    ("minimax_code", HarnessId::MinimaxCode),
];
const PROTOCOLS: &[(&str, ProviderProtocol)] = &[
    ("responses", ProviderProtocol::Responses),
    ("anthropic", ProviderProtocol::Anthropic),
    ("chat_completions", ProviderProtocol::ChatCompletions),
];

/// 16 KiB.
pub const MAX_API_KEY_BYTES: usize = 16 * 1024;
/// Token limits are stored as signed 64-bit integers.
const MAX_TOKENS: u64 = i64::MAX as u64;

pub fn parse_x_agents_core(value: &Value, path: &str) -> Result<XAgentsCore, ValidationError> {
    let mut ext = XAgentsCore::default();
    if value.is_null() {
        return Ok(ext);
    }
    ObjectReader::new(value, path, kind::OBJECT)?.read(MEMBERS, |key, value, path| {
        match key {
            "harness" => ext.harness = scalar::nullable_choice(value, path, HARNESSES)?,
            "model_provider" if !value.is_null() => {
                ext.model_provider = Some(model_provider(value, path)?)
            }
            "harness_config" => match value {
                Value::Null => {}
                Value::Object(config) => ext.harness_config = Some(config.clone()),
                other => return Err(error_messages::invalid_type(path, kind::OBJECT, other)),
            },
            _ => {}
        }
        Ok(())
    })?;
    Ok(ext)
}

fn model_provider(value: &Value, path: &str) -> Result<ModelProvider, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    let (mut protocol, mut base_url, mut api_key) = (None, None, None);
    let (mut context_window, mut max_output_tokens) = (None, None);
    obj.read(PROVIDER_MEMBERS, |key, value, path| {
        match key {
            "protocol" => protocol = Some(scalar::choice(value, path, PROTOCOLS)?),
            "base_url" => base_url = Some(provider_base_url(value, path)?),
            "api_key" => api_key = Some(provider_api_key(value, path)?),
            "context_window" => {
                context_window = scalar::nullable_integer(value, path, 1, MAX_TOKENS)?
            }
            _ => max_output_tokens = scalar::nullable_integer(value, path, 1, MAX_TOKENS)?,
        }
        Ok(())
    })?;
    let provider = ModelProvider {
        protocol: obj.required(protocol, "protocol")?,
        base_url: obj.required(base_url, "base_url")?,
        api_key: obj.required(api_key, "api_key")?,
        context_window,
        max_output_tokens,
    };
    if let (Some(window), Some(max)) = (context_window, max_output_tokens)
        && max > window
    {
        return Err(error_messages::provider_tokens_exceed_window(
            &obj.member("max_output_tokens"),
            window,
            max,
        ));
    }
    Ok(provider)
}

fn provider_base_url(value: &Value, path: &str) -> Result<String, ValidationError> {
    let text = scalar::string(value, path)?;
    let acceptable = crate::http_url::absolute_http_url(text).is_some_and(|url| {
        let loopback = match url.host() {
            Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(Host::Ipv4(ip)) => ip.is_loopback(),
            Some(Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        };
        url.query().is_none() && url.fragment().is_none() && (url.scheme() == "https" || loopback)
    });
    if acceptable {
        Ok(text.to_string())
    } else {
        Err(rule(path, error_messages::PROVIDER_BASE_URL))
    }
}

fn provider_api_key(value: &Value, path: &str) -> Result<String, ValidationError> {
    let key = scalar::nonempty_string(value, path)?;
    if key.len() > MAX_API_KEY_BYTES {
        return Err(error_messages::provider_api_key_too_long(
            path,
            MAX_API_KEY_BYTES,
            key.len(),
        ));
    }
    if key.contains(['\0', '\r', '\n']) {
        return Err(rule(path, error_messages::PROVIDER_API_KEY_CHARACTERS));
    }
    Ok(key.to_string())
}
