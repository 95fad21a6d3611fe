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
use switchboard_store::{Store, StoreError};

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

/// The `kind` of the Environments a Runtime enrolls for.
pub const SELF_HOSTED: &str = "self_hosted";

/// What an exchanged enrollment token gives the Runtime.
pub struct Enrolled {
    pub environment_id: String,
    /// The credential in plain text: returned once, never stored or logged.
    pub credential: String,
}

impl std::fmt::Debug for Enrolled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Enrolled")
            .field("environment_id", &self.environment_id)
            .finish_non_exhaustive()
    }
}

/// Exchanges a current enrollment token for a new credential of its Environment, replacing any
/// earlier credential (so a re-enrolled Environment's old Runtime stops authenticating). `None`
/// for a token that names no self-hosted Environment (wrong, spent, or replaced): the caller
/// cannot tell which.
pub async fn exchange(store: &dyn Store, token: &str) -> Result<Option<Enrolled>, StoreError> {
    let token_digest = digest(token);
    let Some(environment) = store.environment_by_enrollment(&token_digest).await? else {
        return Ok(None);
    };
    if environment.kind != SELF_HOSTED {
        return Ok(None);
    }
    let credential = mint_credential();
    let exchanged = store
        .exchange_enrollment(&token_digest, &credential.digest)
        .await?;
    Ok(exchanged.map(|environment_id| Enrolled {
        environment_id,
        credential: credential.secret,
    }))
}

/// The self-hosted Environment whose enrolled Runtime presents `credential`, if any, as its ID
/// and its Project's (the Runtime works for that Project only). The store is searched by the
/// credential's digest, so no stored secret is ever compared byte by byte.
pub async fn environment_for(
    store: &dyn Store,
    credential: &str,
) -> Result<Option<(String, String)>, StoreError> {
    Ok(store
        .environment_by_credential(&digest(credential))
        .await?
        .filter(|e| e.kind == SELF_HOSTED)
        .map(|e| (e.id, e.project_id)))
}

/// Why no new token was minted.
#[derive(Debug, thiserror::Error)]
pub enum MintError {
    #[error("no Environment with ID {0}")]
    Unknown(String),
    #[error("Environment {id} is {kind}; only self_hosted Environments enroll a Runtime")]
    NotSelfHosted { id: String, kind: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Mints a new enrollment token for a self-hosted Environment of `project`; the previous token
/// stops working, the current credential (if any) keeps working until the new token is
/// exchanged.
pub async fn mint_for(
    store: &dyn Store,
    project: &str,
    environment_id: &str,
) -> Result<Minted, MintError> {
    let environment = store
        .get_environment(project, environment_id)
        .await?
        .ok_or_else(|| MintError::Unknown(environment_id.to_owned()))?;
    if environment.kind != SELF_HOSTED {
        return Err(MintError::NotSelfHosted {
            id: environment.id,
            kind: environment.kind,
        });
    }
    let token = mint_token();
    if !store
        .set_enrollment_digest(project, environment_id, &token.digest)
        .await?
    {
        // Deleted between the read and the write.
        return Err(MintError::Unknown(environment_id.to_owned()));
    }
    Ok(token)
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
