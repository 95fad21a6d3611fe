//! The model-provider relay of a sandbox whose network is disabled.
//!
//! The sandbox has a private network namespace: only its own loopback exists. The harness still
//! has to reach its model provider, so the sandbox's first program is the relay
//! ([`run_inside`], the hidden `switchboard sandbox-relay`): it listens on `127.0.0.1:<port>`
//! inside the namespace, starts the harness, and carries each connection over a Unix socket
//! bound into the sandbox. On the Runtime's side, [`Forwarder`] accepts on that socket and
//! connects to the real provider, and only to it: the socket is the sandbox's one way out.
//!
//! The relay carries bytes, not HTTP, so TLS stays end to end. The harness keeps its provider
//! URL: a loopback provider is listened for on its own port, and a named one is mapped to
//! loopback by the sandbox's `/etc/hosts`; only a provider at a non-loopback IP address needs
//! its URL rewritten (to `127.0.0.1`, same port).

use std::ffi::OsString;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::net::{TcpListener, TcpStream, UnixStream};
use tokio::task::JoinHandle;

/// Where the relay's socket directory is mounted inside the sandbox.
pub const INSIDE_DIR: &str = "/run/switchboard-relay";
/// The socket's name in that directory.
pub const SOCKET_NAME: &str = "provider.sock";
/// The loopback bridge's socket in that directory: the adapter serves its harness there
/// (`ProcessPlacement::loopback`).
pub const BRIDGE_SOCKET_NAME: &str = "loopback.sock";
/// The bridge's port inside the sandbox (any port is free there: the namespace is the
/// sandbox's own), unless the provider's relay listens on it.
const BRIDGE_PORT: u16 = 47_811;

#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    #[error("the provider URL `{0}` has no host or port the relay can reach")]
    BadUrl(String),
    #[error("usage: sandbox-relay (--listen ADDR --socket PATH)… -- PROGRAM [ARGS…]")]
    Usage,
    #[error("relay: {0}")]
    Io(#[from] std::io::Error),
}

/// How a provider URL is reached from inside a sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The provider as the Runtime dials it.
    pub upstream: (String, u16),
    /// What the relay listens on inside the sandbox.
    pub listen: SocketAddr,
    /// A name to map to loopback in the sandbox's `/etc/hosts`.
    pub hosts_name: Option<String>,
    /// The URL the harness uses (the provider URL unless its host had to change).
    pub base_url: String,
}

/// Plans the relay of `base_url`.
pub fn route(base_url: &str) -> Result<Route, RelayError> {
    let bad = || RelayError::BadUrl(base_url.to_owned());
    let mut url = url::Url::parse(base_url).map_err(|_| bad())?;
    let port = url.port_or_known_default().ok_or_else(bad)?;
    let host = url.host_str().ok_or_else(bad)?.to_owned();
    let loopback = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port);
    let upstream = (host.trim_matches(['[', ']']).to_owned(), port);
    let (hosts_name, base_url) = match url.host() {
        Some(url::Host::Ipv4(ip)) if ip.is_loopback() => (None, base_url.to_owned()),
        Some(url::Host::Ipv6(_) | url::Host::Ipv4(_)) => {
            url.set_host(Some("127.0.0.1")).map_err(|_| bad())?;
            (None, url.to_string())
        }
        Some(url::Host::Domain(name)) if name.eq_ignore_ascii_case("localhost") => {
            (None, base_url.to_owned())
        }
        Some(url::Host::Domain(name)) => (Some(name.to_owned()), base_url.to_owned()),
        None => return Err(bad()),
    };
    Ok(Route {
        upstream,
        listen: loopback,
        hosts_name,
        base_url,
    })
}

/// Where the loopback bridge listens inside a sandbox whose provider relay listens on
/// `provider`.
pub fn bridge_listen(provider: SocketAddr) -> SocketAddr {
    let port = if provider.port() == BRIDGE_PORT {
        BRIDGE_PORT + 1
    } else {
        BRIDGE_PORT
    };
    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
}

/// The sandbox's `/etc/hosts` for a relayed provider name.
pub fn hosts_file(name: &str) -> String {
    format!("127.0.0.1\tlocalhost\n::1\tlocalhost\n127.0.0.1\t{name}\n")
}

/// The Runtime-side end: accepts on the socket and connects each connection to the provider.
/// Dropping it stops accepting and removes the socket.
pub struct Forwarder {
    task: JoinHandle<()>,
    socket: PathBuf,
}

impl Forwarder {
    pub fn start(socket: &Path, upstream: (String, u16)) -> Result<Forwarder, RelayError> {
        let _ = std::fs::remove_file(socket);
        let listener = switchboard_adapter_kit::unix_socket::bind(socket)?;
        let task = tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let upstream = upstream.clone();
                tokio::spawn(async move {
                    let Ok(outbound) = TcpStream::connect((upstream.0.as_str(), upstream.1)).await
                    else {
                        return;
                    };
                    pipe(inbound, outbound).await;
                });
            }
        });
        Ok(Forwarder {
            task,
            socket: socket.to_owned(),
        })
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.socket);
    }
}

async fn pipe(mut a: UnixStream, mut b: TcpStream) {
    let _ = tokio::io::copy_bidirectional(&mut a, &mut b).await;
}

/// The relay inside the sandbox: `(--listen ADDR --socket PATH)… -- PROGRAM ARGS…`. Listens on
/// each address, carrying its connections to its socket; starts the program with this
/// process's stdio and environment, relays until the program exits, and returns its exit code.
pub async fn run_inside(args: Vec<OsString>) -> Result<i32, RelayError> {
    let mut args = args.into_iter();
    let mut pairs: Vec<(SocketAddr, PathBuf)> = Vec::new();
    loop {
        let listen = match args.next().as_ref().and_then(|a| a.to_str()) {
            Some("--listen") => args
                .next()
                .and_then(|a| a.to_str().and_then(|s| s.parse::<SocketAddr>().ok()))
                .ok_or(RelayError::Usage)?,
            Some("--") => break,
            _ => return Err(RelayError::Usage),
        };
        let socket = match args.next().as_ref().and_then(|a| a.to_str()) {
            Some("--socket") => args.next().map(PathBuf::from).ok_or(RelayError::Usage)?,
            _ => return Err(RelayError::Usage),
        };
        pairs.push((listen, socket));
    }
    if pairs.is_empty() {
        return Err(RelayError::Usage);
    }
    let program = args.next().ok_or(RelayError::Usage)?;
    let mut listeners = Vec::with_capacity(pairs.len());
    for (listen, socket) in pairs {
        listeners.push((TcpListener::bind(listen).await?, socket));
    }
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()?;
    let accepting: Vec<JoinHandle<()>> = listeners
        .into_iter()
        .map(|(listener, socket)| tokio::spawn(accept_into(listener, socket)))
        .collect();
    let status = child.wait().await;
    for task in accepting {
        task.abort();
    }
    Ok(status?.code().unwrap_or(1))
}

/// Carries each connection `listener` accepts to the Unix socket `socket`.
async fn accept_into(listener: TcpListener, socket: PathBuf) {
    while let Ok((mut inbound, _)) = listener.accept().await {
        let socket = socket.clone();
        tokio::spawn(async move {
            let Ok(mut outbound) = UnixStream::connect(&socket).await else {
                return;
            };
            let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bridge_listens_beside_the_provider_relay_never_on_its_port() {
        let provider: SocketAddr = "127.0.0.1:4321".parse().unwrap();
        assert_eq!(bridge_listen(provider), "127.0.0.1:47811".parse().unwrap());
        let taken: SocketAddr = "127.0.0.1:47811".parse().unwrap();
        assert_eq!(bridge_listen(taken), "127.0.0.1:47812".parse().unwrap());
    }

    #[test]
    fn loopback_and_localhost_keep_their_url() {
        let r = route("http://127.0.0.1:4321/v1").unwrap();
        assert_eq!(r.listen, "127.0.0.1:4321".parse().unwrap());
        assert_eq!(r.base_url, "http://127.0.0.1:4321/v1");
        assert_eq!(r.upstream, ("127.0.0.1".to_owned(), 4321));
        assert_eq!(route("http://localhost:80/v1").unwrap().hosts_name, None);
    }

    #[test]
    fn a_named_provider_is_mapped_to_loopback_and_an_ip_is_rewritten() {
        let r = route("https://api.example.com/v1").unwrap();
        assert_eq!(r.hosts_name.as_deref(), Some("api.example.com"));
        assert_eq!(r.listen.port(), 443);
        assert_eq!(r.base_url, "https://api.example.com/v1");
        let r = route("http://10.1.2.3:8080/v1").unwrap();
        assert_eq!(r.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(r.upstream, ("10.1.2.3".to_owned(), 8080));
    }
}
