//! Project API keys: generation, digests, and the bearer check.
//!
//! A key is `sk-sb-` followed by 43 base64url characters (32 random bytes). Only its SHA-256
//! digest is stored; the secret is shown once, when created. The `hint` (the first 10 characters)
//! tells keys apart in listings without revealing them.

use crate::sync::lock;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};
use switchboard_store::{ApiKeyRecord, ProjectRecord, Store};
use switchboard_wire::ids::{IdKind, new_id};

pub const KEY_PREFIX: &str = "sk-sb-";

/// A fresh secret key.
pub fn generate_secret() -> String {
    let mut b = [0u8; 32];
    rand::rng().fill_bytes(&mut b);
    format!("{KEY_PREFIX}{}", URL_SAFE_NO_PAD.encode(b))
}

pub fn digest(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The Project a request's key opens: every handler scopes its reads and writes to it.
///
/// Set by the bearer check ([`crate::edge::beta_and_auth`]) as a request extension, so a
/// handler names it as an argument. Outside that layer there is none, and the request is the
/// unauthenticated 401.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project(pub String);

impl Project {
    pub fn id(&self) -> &str {
        &self.0
    }
}

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Project {
    type Rejection = crate::edge::Failure;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Project>()
            .cloned()
            .ok_or_else(|| crate::edge::Failure(switchboard_wire::ApiError::unauthorized()))
    }
}

/// The record to store for `secret`, a key of `project`.
pub fn record_for(secret: &str, project: &str, now: i64) -> ApiKeyRecord {
    ApiKeyRecord {
        id: new_id(IdKind::ApiKey),
        project_id: project.to_owned(),
        digest: digest(secret),
        hint: secret.chars().take(10).collect(),
        created_at: now,
        revoked_at: None,
    }
}

/// Extracts the bearer token from an `Authorization` header value.
pub fn bearer(header: Option<&str>) -> Option<&str> {
    let v = header?.trim();
    let (scheme, token) = v.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| token.trim())
}

/// The first Project: the one a fresh data dir starts with (the migration creates it, and it
/// holds every resource of a data dir made before Projects). Created here only if a store has
/// no Project at all.
pub async fn first_project(store: &dyn Store, now: i64) -> switchboard_store::Result<String> {
    if let Some(p) = store.list_projects().await?.into_iter().next() {
        return Ok(p.id);
    }
    let project = new_project("Default Project", now);
    store.insert_project(&project).await?;
    Ok(project.id)
}

/// A fresh, unarchived Project.
pub fn new_project(name: &str, now: i64) -> ProjectRecord {
    ProjectRecord {
        id: new_id(IdKind::Project),
        name: name.to_owned(),
        created_at: now,
        archived_at: None,
    }
}

/// Ensures a usable key exists at start, in the first Project (so the single-user path never
/// names a Project). Returns the secret when one was created now (so the caller can print it):
/// the given `wanted` secret if set and not yet stored, or a fresh one when the store has no
/// key at all.
pub async fn bootstrap(
    store: &dyn Store,
    wanted: Option<&str>,
    now: i64,
) -> switchboard_store::Result<Option<String>> {
    if let Some(secret) = wanted {
        if store.active_api_key(&digest(secret)).await?.is_some() {
            return Ok(None);
        }
        let project = first_project(store, now).await?;
        store
            .insert_api_key(&record_for(secret, &project, now))
            .await?;
        return Ok(Some(secret.to_owned()));
    }
    if store.count_api_keys().await? > 0 {
        return Ok(None);
    }
    let project = first_project(store, now).await?;
    let secret = generate_secret();
    store
        .insert_api_key(&record_for(&secret, &project, now))
        .await?;
    Ok(Some(secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parsing() {
        assert_eq!(bearer(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("bearer  abc ")), Some("abc"));
        assert_eq!(bearer(Some("Basic abc")), None);
        assert_eq!(bearer(Some("Bearer ")), None);
        assert_eq!(bearer(None), None);
    }

    #[test]
    fn secrets_are_unique_and_digests_stable() {
        let a = generate_secret();
        assert!(a.starts_with(KEY_PREFIX) && a.len() == KEY_PREFIX.len() + 43);
        assert_ne!(a, generate_secret());
        assert_eq!(digest("x"), digest("x"));
        assert_eq!(digest("x").len(), 64);
    }
}

/// Remembers keys that authenticated recently, so a request does not cost a store read.
///
/// Revocation must take effect at once even when another process (`switchboard keys revoke`)
/// changes the keys: every writer of keys touches the data directory's `keys.epoch` file, and a
/// changed modification time empties the cache. Entries also expire after [`KeyCache::TTL`], as
/// a bound for writers that do not touch the file. On PostgreSQL the deployment's keys epoch
/// lives in the database, and its notification ([`KeyCache::forget`], from `crate::replicas`)
/// empties the cache of every replica at once.
pub struct KeyCache {
    epoch_file: std::path::PathBuf,
    /// Bumped by every keys epoch notification from the database.
    notified: std::sync::atomic::AtomicU64,
    inner: std::sync::Mutex<CacheState>,
}

#[derive(Default)]
struct CacheState {
    epoch: Option<(Option<std::time::SystemTime>, u64)>,
    /// Digest → when it was verified, and its Project.
    verified: std::collections::HashMap<String, (std::time::Instant, String)>,
}

impl KeyCache {
    pub const TTL: std::time::Duration = std::time::Duration::from_secs(5);

    pub fn new(data_dir: &std::path::Path) -> Self {
        KeyCache {
            epoch_file: epoch_path(data_dir),
            notified: Default::default(),
            inner: Default::default(),
        }
    }

    /// The epoch file's modification time and the count of database notifications: either
    /// changes whenever a writer changed keys.
    pub fn epoch(&self) -> (Option<std::time::SystemTime>, u64) {
        let file = std::fs::metadata(&self.epoch_file)
            .and_then(|m| m.modified())
            .ok();
        (
            file,
            self.notified.load(std::sync::atomic::Ordering::SeqCst),
        )
    }

    /// Keys changed somewhere in the deployment: nothing cached is trusted any more.
    pub fn forget(&self) {
        self.notified
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// The Project of the active key `digest` (not revoked, its Project not archived), reading
    /// the store only on a cache miss; `None` for any other digest.
    pub async fn check(
        &self,
        store: &dyn Store,
        digest: &str,
    ) -> switchboard_store::Result<Option<String>> {
        let epoch = self.epoch();
        {
            let mut st = lock(&self.inner);
            if st.epoch != Some(epoch) {
                st.verified.clear();
                st.epoch = Some(epoch);
            }
            if let Some((_, project)) = st
                .verified
                .get(digest)
                .filter(|(t, _)| t.elapsed() < Self::TTL)
            {
                return Ok(Some(project.clone()));
            }
        }
        let read = store.active_api_key(digest);
        let project = crate::metrics::timed("active_api_key", read)
            .await?
            .map(|k| k.project_id);
        if let Some(project) = &project {
            let mut st = lock(&self.inner);
            if st.epoch == Some(epoch) {
                st.verified.insert(
                    digest.to_owned(),
                    (std::time::Instant::now(), project.clone()),
                );
            }
        }
        Ok(project)
    }
}

pub(crate) fn epoch_path(data_dir: &std::path::Path) -> std::path::PathBuf {
    data_dir.join("keys.epoch")
}

/// Tells running servers that keys changed (see [`KeyCache`]).
pub fn touch_epoch(data_dir: &std::path::Path) -> std::io::Result<()> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::fs::write(epoch_path(data_dir), nanos.to_string())
}
