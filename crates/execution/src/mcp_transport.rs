//! An MCP server's `transport`: `http` or `stdio`, in the saved or the inline form.
//!
//! | form   | `http`                                   | `stdio`                               |
//! |--------|------------------------------------------|---------------------------------------|
//! | saved  | server_url\*, headers                    | command\*, cwd\*, args, env_vars      |
//! | inline | + authorization (rejected when nonempty) | + env (rejected when nonempty)        |
//!
//! Secrets never enter a declaration: a bearer comes only from a Vault credential, so an inline
//! `authorization` and an `Authorization` header are rejected, and stdio variable *values* live
//! in the Environment (`env_vars` only names them). The inline-only members are unknown in the
//! saved form. Neither secret member is kept in the model.
//!
//! HTTP: `server_url` is an absolute HTTP(S) URL without credentials or fragment (a query is
//! allowed); `headers` are non-secret, with HTTP-token names unique ignoring ASCII case and
//! values a client sends unchanged. Stdio: `command` nonempty, `cwd` absolute, `env_vars`
//! variable names, and no part contains NUL.

use serde_json::{Map, Value};

use crate::declarations::McpTransport;
use crate::error::ValidationError;
use crate::error_messages::{self, kind, rule};
use crate::json_path::element_path;
use crate::object_reader::ObjectReader;
use crate::scalar;
use crate::tool_form::ToolForm;

const TYPES: &[&str] = &["http", "stdio"];
const HTTP_SAVED: &[&str] = &["type", "server_url", "headers"];
const HTTP_INLINE: &[&str] = &["type", "server_url", "headers", "authorization"];
const STDIO_SAVED: &[&str] = &["type", "command", "cwd", "args", "env_vars"];
const STDIO_INLINE: &[&str] = &["type", "command", "cwd", "args", "env_vars", "env"];

pub fn parse(value: &Value, path: &str, form: ToolForm) -> Result<McpTransport, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    match obj.tag(TYPES)? {
        "http" => http(&obj, form),
        _ => stdio(&obj, form),
    }
}

fn http(obj: &ObjectReader, form: ToolForm) -> Result<McpTransport, ValidationError> {
    let known = match form {
        ToolForm::Saved => HTTP_SAVED,
        ToolForm::Inline => HTTP_INLINE,
    };
    let (mut server_url, mut headers) = (None, Map::new());
    obj.read(known, |key, value, path| {
        match key {
            "server_url" => server_url = Some(mcp_server_url(value, path)?),
            "headers" if !value.is_null() => headers = parse_headers(value, path)?,
            "authorization" => no_inline_authorization(value, path)?,
            _ => {}
        }
        Ok(())
    })?;
    Ok(McpTransport::Http {
        server_url: obj.required(server_url, "server_url")?,
        headers,
    })
}

/// Inline `authorization` is accepted only when null or empty: a bearer comes from a Vault
/// credential.
fn no_inline_authorization(value: &Value, path: &str) -> Result<(), ValidationError> {
    match scalar::nullable_string(value, path)? {
        Some(secret) if !secret.is_empty() => {
            Err(rule(path, error_messages::MCP_INLINE_AUTHORIZATION))
        }
        _ => Ok(()),
    }
}

/// Inline `env` is accepted only when null or `{}`: values live in the Environment.
fn no_inline_env(value: &Value, path: &str) -> Result<(), ValidationError> {
    if value.is_null() || scalar::string_map(value, path)?.is_empty() {
        Ok(())
    } else {
        Err(rule(path, error_messages::MCP_INLINE_ENV))
    }
}

fn mcp_server_url(value: &Value, path: &str) -> Result<String, ValidationError> {
    let text = scalar::string(value, path)?;
    match crate::http_url::absolute_http_url(text) {
        Some(url) if url.fragment().is_none() => Ok(text.to_string()),
        _ => Err(rule(path, error_messages::MCP_SERVER_URL)),
    }
}

/// Headers in document order. Per header: the value's type, the name, `Authorization`, a
/// case-insensitive repeat, then the value's characters.
fn parse_headers(value: &Value, path: &str) -> Result<Map<String, Value>, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::STRING_MAP)?;
    let mut seen: Vec<String> = Vec::new();
    for (name, item) in obj.entries() {
        let member = obj.member(name);
        let text = scalar::string(item, &member)?;
        if !is_http_token(name) {
            return Err(error_messages::mcp_header_name(&member, name));
        }
        let lower = name.to_ascii_lowercase();
        if lower == "authorization" {
            return Err(rule(&member, error_messages::MCP_AUTHORIZATION_HEADER));
        }
        if seen.contains(&lower) {
            return Err(error_messages::mcp_duplicate_header(&member, name));
        }
        seen.push(lower);
        if !is_sendable_header_value(text) {
            return Err(error_messages::mcp_header_value(&member, name));
        }
    }
    Ok(obj.to_map())
}

/// RFC 9110 `token`: one or more `tchar`.
fn is_http_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// RFC 9110 `field-value` restricted to ASCII: visible characters with spaces or tabs only
/// between them (empty is allowed). Non-ASCII (`obs-text`) is refused because some clients
/// reject it (Rust's `http` crate from strings) and others re-encode it (Node's Latin-1), so it
/// would not reach the server unchanged; surrounding whitespace is refused because receivers
/// strip it.
fn is_sendable_header_value(value: &str) -> bool {
    let visible = |b: u8| (0x21..=0x7E).contains(&b);
    let bytes = value.as_bytes();
    bytes.iter().all(|&b| visible(b) || b == b' ' || b == b'\t')
        && bytes.first().is_none_or(|&b| visible(b))
        && bytes.last().is_none_or(|&b| visible(b))
}

fn stdio(obj: &ObjectReader, form: ToolForm) -> Result<McpTransport, ValidationError> {
    let known = match form {
        ToolForm::Saved => STDIO_SAVED,
        ToolForm::Inline => STDIO_INLINE,
    };
    let (mut command, mut cwd, mut args, mut env_vars) = (None, None, Vec::new(), Vec::new());
    obj.read(known, |key, value, path| {
        match key {
            "command" => {
                let text = without_nul(scalar::string(value, path)?, path)?;
                if text.is_empty() {
                    return Err(error_messages::empty_string(path));
                }
                command = Some(text.to_string());
            }
            "cwd" => {
                let text = without_nul(scalar::string(value, path)?, path)?;
                if !text.starts_with('/') {
                    return Err(rule(path, error_messages::MCP_STDIO_CWD));
                }
                cwd = Some(text.to_string());
            }
            "args" => {
                args = scalar::nullable_string_array(value, path)?.unwrap_or_default();
                for (i, arg) in args.iter().enumerate() {
                    without_nul(arg, &element_path(path, i))?;
                }
            }
            "env_vars" => {
                env_vars = scalar::nullable_string_array(value, path)?.unwrap_or_default();
                for (i, name) in env_vars.iter().enumerate() {
                    let at = element_path(path, i);
                    if !is_variable_name(without_nul(name, &at)?) {
                        return Err(error_messages::mcp_env_var_name(&at, name));
                    }
                }
            }
            "env" => no_inline_env(value, path)?,
            _ => {}
        }
        Ok(())
    })?;
    Ok(McpTransport::Stdio {
        command: obj.required(command, "command")?,
        args,
        cwd: obj.required(cwd, "cwd")?,
        env_vars,
    })
}

fn without_nul<'a>(text: &'a str, path: &str) -> Result<&'a str, ValidationError> {
    if text.contains('\0') {
        Err(rule(path, error_messages::MCP_STDIO_NUL))
    } else {
        Ok(text)
    }
}

/// A portable environment variable name: `[A-Za-z_][A-Za-z0-9_]*`.
fn is_variable_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_tokens() {
        for name in ["X-Trace", "x_1", "A!#$%&'*+-.^_`|~z"] {
            assert!(is_http_token(name), "{name}");
        }
        for name in ["", "X Trace", "X:Trace", "Ü", "X\tY", "(x)"] {
            assert!(!is_http_token(name), "{name:?}");
        }
    }

    #[test]
    fn header_values() {
        for value in ["", "v", "a b\tc", "~!@#"] {
            assert!(is_sendable_header_value(value), "{value:?}");
        }
        for value in [" v", "v ", "\tv", "a\nb", "a\rb", "a\0b", "é", "a\u{7f}"] {
            assert!(!is_sendable_header_value(value), "{value:?}");
        }
    }

    #[test]
    fn variable_names() {
        for name in ["HOME", "_x", "A1_b"] {
            assert!(is_variable_name(name), "{name}");
        }
        for name in ["", "1A", "A-B", "A B", "Ä", "A=B"] {
            assert!(!is_variable_name(name), "{name:?}");
        }
    }
}
