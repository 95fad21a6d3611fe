//! HTTPS for the tests: a private CA made at test time, a server certificate it signs for
//! `localhost` and `127.0.0.1`, and an axum listener that serves over TLS with it. Clients in
//! the process under test trust the CA the way a deployment would: `SSL_CERT_FILE` (the
//! system trust store, as rustls-native-certs reads it).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair, KeyUsagePurpose};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::{TlsAcceptor, server::TlsStream};

/// A private CA, its PEM written to `ca_file`, and the server identity it signed.
pub struct TestCa {
    pub ca_file: PathBuf,
    pub server: Arc<ServerConfig>,
    _dir: tempfile::TempDir,
}

impl TestCa {
    pub fn new() -> TestCa {
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        ca.distinguished_name
            .push(rcgen::DnType::CommonName, "Switchboard test CA");
        let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
        let leaf_key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .unwrap()
            .signed_by(&leaf_key, &ca)
            .unwrap();
        let provider = Arc::new(tokio_rustls::rustls::crypto::aws_lc_rs::default_provider());
        let server = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![leaf.der().clone(), ca.der().clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
            )
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let ca_file = dir.path().join("ca.pem");
        std::fs::write(&ca_file, ca.pem()).unwrap();
        TestCa {
            ca_file,
            server: Arc::new(server),
            _dir: dir,
        }
    }

    /// Makes this process trust only the CA, as a deployment does with `SSL_CERT_FILE`. Call it
    /// first, before the test starts any client.
    pub fn trust_in_this_process(&self) {
        super::process_env::set("SSL_CERT_FILE", &self.ca_file);
    }
}

/// A TCP listener whose connections are TLS, for `axum::serve`.
pub struct TlsListener {
    tcp: TcpListener,
    acceptor: TlsAcceptor,
}

impl TlsListener {
    pub async fn bind(addr: SocketAddr, config: Arc<ServerConfig>) -> TlsListener {
        TlsListener {
            tcp: TcpListener::bind(addr).await.unwrap(),
            acceptor: TlsAcceptor::from(config),
        }
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((stream, addr)) = self.tcp.accept().await else {
                continue;
            };
            // A failed handshake (a client that does not trust the CA) drops that connection.
            if let Ok(tls) = self.acceptor.accept(stream).await {
                return (tls, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}
