//! Refreshing an `mcp_oauth` credential's access token: one `refresh_token` grant to its token
//! endpoint (RFC 6749 §6), no retry.
//!
//! The endpoint is checked against SSRF before anything is sent: HTTPS, every address its host
//! resolves to public (no loopback, private, link-local, shared, unspecified, multicast or
//! documentation range), the connection pinned to the checked address, and redirects not
//! followed. The deployment flag of [`crate::vaults::url_policy`] allows loopback HTTP and
//! non-public addresses (local test endpoints). Secrets travel only in the request body or the
//! Basic header and are never logged.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use serde::Deserialize;
use switchboard_execution::vault::{EndpointAuth, UrlPolicy, https_url, is_b64token};
use url::Url;

/// What one refresh sends, secrets open.
pub struct RefreshRequest<'a> {
    pub token_endpoint: &'a str,
    pub client_id: &'a str,
    pub method: EndpointAuth,
    pub client_secret: Option<String>,
    pub refresh_token: String,
    pub resource: Option<&'a str>,
    pub scope: Option<&'a str>,
}

/// A successful refresh.
pub struct Refreshed {
    pub access_token: String,
    /// Seconds the new token lives, when the endpoint said.
    pub expires_in: Option<i64>,
    /// A rotated refresh token, when the endpoint issued one.
    pub refresh_token: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum RefreshError {
    #[error("the token endpoint is not an allowed HTTPS address")]
    Blocked,
    #[error("the token endpoint could not be reached: {0}")]
    Unreachable(String),
    #[error("the token endpoint answered HTTP {0}")]
    Status(u16),
    #[error("the token endpoint's answer holds no usable access_token")]
    Answer,
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    expires_in: Option<i64>,
    refresh_token: Option<String>,
}

const TIMEOUT: Duration = Duration::from_secs(10);

pub async fn refresh(
    req: RefreshRequest<'_>,
    policy: UrlPolicy,
) -> Result<Refreshed, RefreshError> {
    let url = Url::parse(req.token_endpoint).map_err(|_| RefreshError::Blocked)?;
    if !https_url(req.token_endpoint, policy) {
        return Err(RefreshError::Blocked);
    }
    let addr = checked_address(&url, policy).await?;
    let mut client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(TIMEOUT);
    if let Some(url::Host::Domain(domain)) = url.host() {
        client = client.resolve(domain, addr);
    }
    let client = client
        .build()
        .map_err(|e| RefreshError::Unreachable(e.to_string()))?;

    let mut request = client
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json");
    // The serializer is not `Send`: it lives in this block, finished before the first await.
    let body = {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        form.append_pair("grant_type", "refresh_token")
            .append_pair("refresh_token", &req.refresh_token);
        if let Some(scope) = req.scope {
            form.append_pair("scope", scope);
        }
        if let Some(resource) = req.resource {
            form.append_pair("resource", resource);
        }
        match (req.method, &req.client_secret) {
            (EndpointAuth::ClientSecretBasic, Some(secret)) => {
                // RFC 6749 §2.3.1: both parts form-encoded before Basic.
                let enc = |s: &str| {
                    url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>()
                };
                let pair = format!("{}:{}", enc(req.client_id), enc(secret));
                request = request.header("authorization", format!("Basic {}", B64.encode(pair)));
            }
            (EndpointAuth::ClientSecretPost, Some(secret)) => {
                form.append_pair("client_id", req.client_id)
                    .append_pair("client_secret", secret);
            }
            _ => {
                form.append_pair("client_id", req.client_id);
            }
        }
        form.finish()
    };
    let response = request
        .body(body)
        .send()
        .await
        .map_err(|e| RefreshError::Unreachable(e.without_url().to_string()))?;
    if !response.status().is_success() {
        return Err(RefreshError::Status(response.status().as_u16()));
    }
    let bytes = response
        .bytes()
        .await
        .map_err(|e| RefreshError::Unreachable(e.without_url().to_string()))?;
    let answer: TokenAnswer = serde_json::from_slice(&bytes).map_err(|_| RefreshError::Answer)?;
    let usable = |t: &str| is_b64token(t) && !t.contains(['\r', '\n', '\0']);
    if !usable(&answer.access_token) {
        return Err(RefreshError::Answer);
    }
    Ok(Refreshed {
        access_token: answer.access_token,
        expires_in: answer.expires_in.filter(|s| *s >= 0),
        refresh_token: answer.refresh_token.filter(|t| !t.is_empty()),
    })
}

/// The address to connect to: the host's first address, when every address it has is allowed.
async fn checked_address(url: &Url, policy: UrlPolicy) -> Result<SocketAddr, RefreshError> {
    let port = url.port_or_known_default().ok_or(RefreshError::Blocked)?;
    let addrs: Vec<SocketAddr> = match url.host() {
        Some(url::Host::Ipv4(ip)) => vec![SocketAddr::new(IpAddr::V4(ip), port)],
        Some(url::Host::Ipv6(ip)) => vec![SocketAddr::new(IpAddr::V6(ip), port)],
        Some(url::Host::Domain(d)) => tokio::net::lookup_host((d, port))
            .await
            .map_err(|e| RefreshError::Unreachable(e.to_string()))?
            .collect(),
        None => return Err(RefreshError::Blocked),
    };
    let allowed = |a: &SocketAddr| policy.allow_loopback_http || is_public(a.ip());
    match addrs.first() {
        Some(first) if addrs.iter().all(allowed) => Ok(*first),
        _ => Err(RefreshError::Blocked),
    }
}

/// Whether `ip` is a public unicast address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (64..128).contains(&o[1]))
                || (o[0] == 192 && o[1] == 0 && o[2] == 0)
                || (o[0] == 198 && (18..20).contains(&o[1]))
                || o[0] >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let s = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] == 0x2001 && s[1] == 0x0db8)
                || (s[0] == 0x0064 && s[1] == 0xff9b))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_unicast_addresses_are_public() {
        for ip in ["8.8.8.8", "1.1.1.1", "2606:4700::1111"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[tokio::test]
    async fn blocked_endpoints_are_refused_before_any_request() {
        let strict = UrlPolicy::default();
        for url in [
            "https://127.0.0.1/token",
            "https://[::1]/token",
            "https://169.254.169.254/latest",
            "https://localhost/token",
            "http://8.8.8.8/token",
        ] {
            let req = RefreshRequest {
                token_endpoint: url,
                client_id: "c",
                method: EndpointAuth::None,
                client_secret: None,
                refresh_token: "r".into(),
                resource: None,
                scope: None,
            };
            assert!(
                matches!(refresh(req, strict).await, Err(RefreshError::Blocked)),
                "{url}"
            );
        }
    }
}
