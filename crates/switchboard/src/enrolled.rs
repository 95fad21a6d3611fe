//! A self-hosted Environment's Runtime credential: the one-time exchange of an enrollment token
//! (`POST /runtime/enroll`) and the file in the Runtime's data dir that keeps the result, so
//! restarts and reconnections need no token.
//!
//! The file is created with mode 0600 (written beside and renamed into place, so a crash never
//! leaves half a credential) and the credential is never printed or logged.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

/// The credential file, under the Runtime's data dir.
pub const FILE: &str = "runtime-credential.json";
/// Bound on the exchange request.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(15);

/// What an enrolled Runtime keeps.
#[derive(Serialize, Deserialize)]
pub struct Saved {
    pub environment_id: String,
    pub credential: String,
    /// How this Runtime introduces itself: chosen at the first enrollment of this data dir and
    /// kept, so Core sees the same Runtime across restarts.
    pub runtime_id: String,
    /// The digest of the enrollment token this credential was exchanged for: the same
    /// `--enroll TOKEN` line run again (a service restarted with its command) reuses the
    /// credential instead of failing on the spent token.
    #[serde(default)]
    pub token_digest: Option<String>,
}

impl std::fmt::Debug for Saved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Saved")
            .field("environment_id", &self.environment_id)
            .field("runtime_id", &self.runtime_id)
            .finish_non_exhaustive()
    }
}

pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

/// The saved credential, `None` when this data dir never enrolled.
pub fn load(data_dir: &Path) -> anyhow::Result<Option<Saved>> {
    let path = path(data_dir);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let saved = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a Runtime credential file", path.display()))?;
    Ok(Some(saved))
}

/// Writes the credential file with mode 0600.
pub fn save(data_dir: &Path, saved: &Saved) -> anyhow::Result<()> {
    let path = path(data_dir);
    let partial = data_dir.join(format!("{FILE}.partial"));
    let text = serde_json::to_vec_pretty(saved)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(&partial)
        .with_context(|| format!("creating {}", partial.display()))?;
    // A file left by an older run keeps its mode on open: set it whatever it was.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(&text)?;
    file.sync_all()?;
    std::fs::rename(&partial, &path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// A new Runtime ID for this data dir: the host name and a random suffix.
pub fn new_runtime_id(host: &str) -> String {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    hasher.write_u32(std::process::id());
    format!("{host}-{:08x}", hasher.finish() as u32)
}

#[derive(Deserialize)]
struct Exchanged {
    environment_id: String,
    credential: String,
}

/// Exchanges `token` at `enroll_url`: the Environment ID and the credential. Only a failure to
/// reach Core is retried (the token cannot have been spent then); any answer but 200 is final.
pub async fn exchange(enroll_url: &str, token: &str) -> anyhow::Result<(String, String)> {
    let http = reqwest::Client::builder()
        .timeout(EXCHANGE_TIMEOUT)
        .build()
        .context("building the HTTP client")?;
    let mut retry = Duration::from_millis(500);
    let response = loop {
        match http
            .post(enroll_url)
            .json(&serde_json::json!({ "token": token }))
            .send()
            .await
        {
            Ok(response) => break response,
            Err(e) if e.is_connect() && retry <= Duration::from_secs(8) => {
                tracing::warn!("could not reach Core at {enroll_url}: {e}; retrying in {retry:?}");
                tokio::time::sleep(retry).await;
                retry *= 2;
            }
            Err(e) => bail!("could not enroll at {enroll_url}: {e}"),
        }
    };
    let status = response.status();
    if status.is_success() {
        let body: Exchanged = response
            .json()
            .await
            .with_context(|| format!("Core's answer at {enroll_url} is not an enrollment"))?;
        return Ok((body.environment_id, body.credential));
    }
    let detail = response
        .json::<serde_json::Value>()
        .await
        .ok()
        .and_then(|body| body["error"]["message"].as_str().map(str::to_owned))
        .unwrap_or_default();
    if status.as_u16() == 401 {
        bail!(
            "Core at {enroll_url} refused the enrollment token (HTTP 401): {detail} A token works once and a newer one replaces it: run `switchboard environments enroll ENV_ID` on the Core host for a new one."
        );
    }
    bail!("Core at {enroll_url} refused the enrollment: HTTP {status}. {detail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_credential_file_is_private_and_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).unwrap().is_none());
        let saved = Saved {
            environment_id: "env_1".into(),
            credential: "sbenv_secret".into(),
            runtime_id: new_runtime_id("host"),
            token_digest: None,
        };
        assert!(!format!("{saved:?}").contains("sbenv_secret"));
        save(dir.path(), &saved).unwrap();
        save(dir.path(), &saved).unwrap();
        let loaded = load(dir.path()).unwrap().unwrap();
        assert_eq!(loaded.credential, "sbenv_secret");
        assert_eq!(loaded.runtime_id, saved.runtime_id);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path(dir.path()))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_ne!(new_runtime_id("h"), new_runtime_id("h"));
    }
}
