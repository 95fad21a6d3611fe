//! Enrollment of a self-hosted Environment's Runtime across processes: `switchboard
//! environments enroll` on the Core host mints a token (the previous one stops working), the
//! token works once, `switchboard runtime --enroll` keeps the credential it gets (mode 0600,
//! never printed) and later starts connect with it alone (or with the same, spent, enroll
//! line) under the same Runtime ID; enrolling
//! again replaces the credential, and a Runtime still holding the old one is refused.

use crate::support;

use serde_json::json;
use support::{Core, Mock, cli, mint_enrollment, scratch, seed_environment, token_of};

const ENV_A: &str = "env_0000000000000000000000000000000a";
const HOSTED: &str = "env_00000000000000000000000000000hst";

fn refused() -> serde_json::Value {
    json!({"error": {
        "message": "A valid enrollment token is required.",
        "type": "invalid_request_error",
        "param": null,
        "code": null,
    }})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_enrollment_token_works_once_and_the_saved_credential_reconnects() {
    let dir = scratch("enroll-once-");
    let core_dir = dir.path().join("core");
    seed_environment(&core_dir, ENV_A, "self_hosted").await;
    seed_environment(&core_dir, HOSTED, "openai_hosted").await;
    let mock = Mock::start(dir.path(), None).await;
    let core = Core::start(&core_dir, &mock).await;

    // The Core host mints a token and prints the exact line to run.
    let command = mint_enrollment(&core_dir, ENV_A, &core.root).await;
    let token = token_of(&command);
    assert_eq!(
        command,
        format!("switchboard runtime --core {} --enroll {token}", core.root)
    );
    // A wrong token, and a body that is not `{token}`, change nothing.
    assert_eq!(core.exchange("sbenr_wrong").await, (401, refused()));

    let runtime_dir = dir.path().join("runtime");
    let mut runtime = core.enrolled_runtime(Some(&token), &runtime_dir, true);
    assert_eq!(
        runtime.line().await,
        format!(
            "Enrolled for Environment {ENV_A}; the credential is saved in {}",
            runtime_dir.join("runtime-credential.json").display()
        )
    );
    let connected = runtime.line().await;
    assert!(connected.starts_with("Runtime "), "{connected}");
    assert!(
        connected.ends_with(&format!(" connected to {}/runtime/connect", core.ws_url())),
        "{connected}"
    );

    // The token is spent.
    assert_eq!(core.exchange(&token).await, (401, refused()));

    let file = runtime_dir.join("runtime-credential.json");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["environment_id"], ENV_A);
    let credential = saved["credential"].as_str().unwrap().to_owned();
    assert!(credential.starts_with("sbenv_"), "{saved}");
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "credential file mode {mode:o}");
    }

    // Restarted with no token, the Runtime connects with the saved credential, as the same
    // Runtime.
    runtime.child.start_kill().unwrap();
    let (_, stderr) = runtime.exit().await;
    assert!(!stderr.contains(&credential), "the credential was logged");
    // The same enroll line run again reuses the credential its token was exchanged for.
    let mut again = core.enrolled_runtime(Some(&token), &runtime_dir, false);
    assert_eq!(again.line().await, connected);
    again.child.kill().await.unwrap();
    let mut restarted = core.enrolled_runtime(None, &runtime_dir, true);
    assert_eq!(restarted.line().await, connected);

    // The Core host mints twice: the first new token no longer works, the second does once.
    let replaced = token_of(&mint_enrollment(&core_dir, ENV_A, &core.root).await);
    let current = token_of(&mint_enrollment(&core_dir, ENV_A, &core.root).await);
    assert_eq!(core.exchange(&replaced).await, (401, refused()));
    let (status, enrolled) = core.exchange(&current).await;
    assert_eq!(status, 200, "{enrolled}");
    assert_eq!(enrolled["environment_id"], ENV_A);
    assert_ne!(enrolled["credential"], credential.as_str());
    // That replaced the running Runtime's credential: Core ends its connection and refuses it
    // when it dials again, and the Runtime exits saying what to do.
    let (status, stderr) = restarted.exit().await;
    assert!(!status.success());
    assert!(
        stderr.contains("HTTP 401")
            && stderr.contains(&format!("switchboard environments enroll {ENV_A}")),
        "{stderr}"
    );
    assert!(!stderr.contains(&credential), "the credential was logged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_known_self_hosted_environment_gets_an_enrollment_token() {
    let dir = scratch("enroll-cli-");
    let core_dir = dir.path().join("core");
    seed_environment(&core_dir, HOSTED, "openai_hosted").await;
    let data_dir = core_dir.display().to_string();
    let enroll = |id: &'static str| {
        let data_dir = data_dir.clone();
        async move { cli(&["environments", "enroll", id, "--data-dir", &data_dir]).await }
    };

    let (status, stdout, stderr) = enroll("env_unknown").await;
    assert!(!status.success());
    assert_eq!(stdout, "");
    assert!(
        stderr.contains("no Environment with ID env_unknown"),
        "{stderr}"
    );

    let (status, stdout, stderr) = enroll(HOSTED).await;
    assert!(!status.success());
    assert_eq!(stdout, "");
    assert!(
        stderr.contains(&format!(
            "Environment {HOSTED} is openai_hosted; only self_hosted Environments enroll a Runtime"
        )),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_enroll_route_reads_only_a_string_token() {
    let dir = scratch("enroll-body-");
    let mock = Mock::start(dir.path(), None).await;
    let core = Core::start(&dir.path().join("core"), &mock).await;
    let http = reqwest::Client::new();
    let post = |body: &'static str| {
        let request = http
            .post(format!("{}/runtime/enroll", core.root))
            .header("content-type", "application/json")
            .body(body);
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.json::<serde_json::Value>().await.unwrap())
        }
    };
    let (status, body) = post(r#"{"token": 1}"#).await;
    assert_eq!(status, 400);
    assert_eq!(
        body,
        json!({"error": {
            "message": "Invalid type for 'token': expected a string, but got an integer instead.",
            "type": "invalid_request_error", "param": "token", "code": "invalid_type",
        }})
    );
    let (status, body) = post(r#"{}"#).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (400, &json!("missing_required_parameter"))
    );
    let (status, body) = post(r#"{"token": "a", "token2": "b"}"#).await;
    assert_eq!((status, &body["error"]["param"]), (400, &json!("token2")));
    let (status, body) = post(r#"{"token": "a",}"#).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (400, &json!("invalid_request_error"))
    );
}
