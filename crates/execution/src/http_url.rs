//! What "an absolute HTTP(S) URL" means for the URLs a declaration carries.
//!
//! Two members hold URLs a harness will dial: MCP `server_url` and the model provider's
//! `base_url`. Both are stored and forwarded exactly as sent, so the check must accept only text
//! that every client reads the same way. The WHATWG parser behind the `url` crate forgives a lot
//! (it trims surrounding spaces, drops tabs and newlines, reads `https:host` and backslashes as
//! `https://host`), and a native client may not forgive the same things. So, before parsing, the
//! text must be free of whitespace and controls and spell the scheme with a literal `://`.

use url::Url;

/// Parses `text` as an absolute `http` or `https` URL with a host and no credentials.
/// Query and fragment rules differ per member and are left to the caller.
pub fn absolute_http_url(text: &str) -> Option<Url> {
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let (scheme, rest) = text.split_once(':')?;
    if !rest.starts_with("//") || !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https")
    {
        return None;
    }
    let url = Url::parse(text).ok()?;
    let has_host = url.host_str().is_some_and(|h| !h.is_empty());
    (has_host && url.username().is_empty() && url.password().is_none()).then_some(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_plain_absolute_urls() {
        for text in [
            "https://mcp.example.com/mcp",
            "http://127.0.0.1:8080/v1",
            "HTTPS://Example.com",
            "https://h/p?q=1#f",
        ] {
            assert!(absolute_http_url(text).is_some(), "{text}");
        }
    }

    #[test]
    fn rejects_what_clients_could_read_differently() {
        for text in [
            "",
            "mcp.example.com",
            "/relative",
            "https:example.com",
            "https:\\\\example.com",
            " https://example.com",
            "https://example.com ",
            "https://exa\tmple.com",
            "ftp://example.com",
            "file:///etc/passwd",
            "https://user@example.com",
            "https://user:pw@example.com",
            "https://:pw@example.com",
            "https://",
            "https://example.com:99999",
        ] {
            assert!(absolute_http_url(text).is_none(), "{text:?}");
        }
    }
}
