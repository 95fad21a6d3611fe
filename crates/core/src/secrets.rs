//! Sealing write-only secrets (model provider API keys) before they reach the store.
//!
//! A secret is sealed with XChaCha20-Poly1305 under the deployment's data key and stored as
//! `sealed:v1:<base64(nonce || ciphertext)>`. The key lives in `<data-dir>/secret.key` (created
//! with mode 0600 on first start), in the `--data-key-file` replicas share, or comes from
//! `SWITCHBOARD_SECRET_KEY` (base64, 32 bytes).
//! Sealed values are never echoed or logged; only the Runtime receives the opened value.

use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

const PREFIX: &str = "sealed:v1:";

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("the data key is not 32 bytes of base64")]
    BadKey,
    #[error("a sealed secret could not be opened (wrong data key or corrupted store)")]
    Open,
    #[error("a secret could not be sealed")]
    Seal,
    #[error("io error on the data key file: {0}")]
    Io(#[from] std::io::Error),
}

#[derive(Clone)]
pub struct SecretBox {
    cipher: XChaCha20Poly1305,
}

impl SecretBox {
    pub fn from_key(key: &[u8]) -> Result<Self, SecretError> {
        let cipher = XChaCha20Poly1305::new_from_slice(key).map_err(|_| SecretError::BadKey)?;
        Ok(SecretBox { cipher })
    }

    /// Loads the data key from `SWITCHBOARD_SECRET_KEY` or `<data_dir>/secret.key`, creating the
    /// file on first start.
    pub fn load_or_create(data_dir: &Path) -> Result<Self, SecretError> {
        if let Ok(v) = std::env::var("SWITCHBOARD_SECRET_KEY") {
            return Self::from_key(&B64.decode(v.trim()).map_err(|_| SecretError::BadKey)?);
        }
        Self::load_or_create_file(&data_dir.join("secret.key"))
    }

    /// Loads the data key from the file `path` (base64 of 32 bytes), creating it (mode 0600)
    /// when absent: `--data-key-file`, the key several replicas share.
    pub fn load_or_create_file(path: &Path) -> Result<Self, SecretError> {
        if path.exists() {
            let text = std::fs::read_to_string(path)?;
            return Self::from_key(&B64.decode(text.trim()).map_err(|_| SecretError::BadKey)?);
        }
        let key = XChaCha20Poly1305::generate_key(&mut OsRng);
        write_private(path, &B64.encode(key))?;
        Self::from_key(&key)
    }

    pub fn seal(&self, plain: &str) -> Result<String, SecretError> {
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let ct = self
            .cipher
            .encrypt(&nonce, plain.as_bytes())
            .map_err(|_| SecretError::Seal)?;
        let mut buf = nonce.to_vec();
        buf.extend_from_slice(&ct);
        Ok(format!("{PREFIX}{}", B64.encode(buf)))
    }

    pub fn open(&self, sealed: &str) -> Result<String, SecretError> {
        let raw = sealed.strip_prefix(PREFIX).ok_or(SecretError::Open)?;
        let buf = B64.decode(raw).map_err(|_| SecretError::Open)?;
        if buf.len() < 24 {
            return Err(SecretError::Open);
        }
        let (nonce, ct) = buf.split_at(24);
        let nonce: [u8; 24] = nonce.try_into().map_err(|_| SecretError::Open)?;
        let plain = self
            .cipher
            .decrypt(&XNonce::from(nonce), ct)
            .map_err(|_| SecretError::Open)?;
        String::from_utf8(plain).map_err(|_| SecretError::Open)
    }
}

fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    #[cfg(unix)]
    use std::os::unix::fs::OpenOptionsExt;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    opts.mode(0o600);
    opts.open(path)?.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_open_round_trip_and_never_contains_plaintext() {
        let dir = tempfile::tempdir().unwrap();
        let b = SecretBox::load_or_create(dir.path()).unwrap();
        let sealed = b.seal("sk-provider-secret").unwrap();
        assert!(!sealed.contains("sk-provider-secret"));
        assert_eq!(b.open(&sealed).unwrap(), "sk-provider-secret");
        // The key file persists: a second load opens what the first sealed.
        let again = SecretBox::load_or_create(dir.path()).unwrap();
        assert_eq!(again.open(&sealed).unwrap(), "sk-provider-secret");
        let other = SecretBox::from_key(&[7u8; 32]).unwrap();
        assert!(other.open(&sealed).is_err());
    }
}
