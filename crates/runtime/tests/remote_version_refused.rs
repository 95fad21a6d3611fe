//! A Core on another protocol version answers `hello_refused`; `run_remote` ends with
//! [`RemoteError::Refused`], whose message names both versions.

use crate::support;

use std::sync::Arc;

use support::fake_core::{Answer, FakeCore};
use switchboard_protocol::PROTOCOL_VERSION;
use switchboard_runtime::{
    Locator, Registry, RemoteError, RemoteOptions, RuntimeOptions, run_remote,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_mismatch_is_a_clear_refusal() {
    let core = FakeCore::start(Answer::RefuseAs {
        supported_version: "2.0.0".into(),
    })
    .await;
    let data = support::scratch("remote-refused-");
    let registry = Arc::new(Registry::standard(Locator::new(data.path())));
    let options = RemoteOptions {
        runtime_id: "runtime-test".into(),
        runtime: RuntimeOptions::for_data_dir(data.path()),
    };
    let outcome = tokio::time::timeout(
        support::WAIT,
        run_remote(&core.url, "daemon-token", registry, options),
    )
    .await
    .expect("a refusal ends run_remote");
    let error = outcome.expect_err("the handshake is refused");
    let RemoteError::Refused {
        code,
        supported_version,
        ..
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!(code, "incompatible_version");
    assert_eq!(supported_version, "2.0.0");
    let text = error.to_string();
    assert!(
        text.contains("2.0.0") && text.contains(PROTOCOL_VERSION),
        "{text}"
    );
}
