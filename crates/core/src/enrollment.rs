//! Enrollment of a self-hosted Environment's Runtime.
//!
//! Creating a `self_hosted` Environment mints a one-time enrollment token, shown once (in the
//! create response's `x_agents_core.enrollment`). The user runs the [`command`] on their machine;
//! the Runtime exchanges the token for a per-Environment credential, which it keeps in its data
//! dir and presents on every later connection. Core stores only the SHA-256 digests of both
//! (the `environments` row's `enrollment_digest` and `credential_digest`); an exchanged token is
//! cleared, so it works once, and minting a new one replaces the old.

use crate::auth::digest;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;

/// Prefix of enrollment tokens.
pub const TOKEN_PREFIX: &str = "sbenr_";
/// Prefix of the per-Environment Runtime credentials.
pub const CREDENTIAL_PREFIX: &str = "sbenv_";

/// A freshly minted secret and the digest Core stores for it.
#[derive(Clone, PartialEq, Eq)]
pub struct Minted {
    pub secret: String,
    pub digest: String,
}

impl std::fmt::Debug for Minted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Minted")
            .field("digest", &self.digest)
            .finish_non_exhaustive()
    }
}

fn mint(prefix: &str) -> Minted {
    let mut b = [0u8; 32];
    rand::rng().fill_bytes(&mut b);
    let secret = format!("{prefix}{}", URL_SAFE_NO_PAD.encode(b));
    Minted {
        digest: digest(&secret),
        secret,
    }
}

/// A new one-time enrollment token.
pub fn mint_token() -> Minted {
    mint(TOKEN_PREFIX)
}

/// A new Runtime credential for an Environment.
pub fn mint_credential() -> Minted {
    mint(CREDENTIAL_PREFIX)
}

/// The exact line a user runs on their machine to enroll its Runtime.
pub fn command(core_url: &str, token: &str) -> String {
    format!("switchboard runtime --core {core_url} --enroll {token}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unique_prefixed_and_digested() {
        let (a, b) = (mint_token(), mint_token());
        assert_ne!(a.secret, b.secret);
        assert!(a.secret.starts_with(TOKEN_PREFIX));
        assert_eq!(a.digest, digest(&a.secret));
        assert!(mint_credential().secret.starts_with(CREDENTIAL_PREFIX));
        assert!(!format!("{a:?}").contains(&a.secret));
        assert_eq!(
            command("http://127.0.0.1:7000", "sbenr_x"),
            "switchboard runtime --core http://127.0.0.1:7000 --enroll sbenr_x"
        );
    }
}
