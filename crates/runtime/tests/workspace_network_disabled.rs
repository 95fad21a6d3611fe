//! `network: disabled`: the sandbox has a private network namespace, so a TCP connection to a
//! loopback server outside it fails, while the model provider is still reached through the
//! Runtime's relay at its own URL. With the network enabled the same server is reachable, so the
//! refusal is the namespace's doing.

use crate::support;

use futures::FutureExt;
use support::scratch;
use support::workspace::*;
use switchboard_protocol::workspace::NetworkAccess;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// A loopback listener and its port.
async fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

/// Greets every connection with `greeting`.
fn serve(listener: TcpListener, greeting: &'static str) {
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let _ = stream.write_all(greeting.as_bytes()).await;
        }
    });
}

/// Tries the outside server, then the provider, from inside the sandbox (bash's `/dev/tcp`).
fn probe_script(outside: u16, provider: u16) -> String {
    format!(
        "if (exec 3<>/dev/tcp/127.0.0.1/{outside}) 2>/dev/null; then echo outside-reached; else echo outside-refused; fi\n\
         exec 3<>/dev/tcp/127.0.0.1/{provider} && read -r line <&3 && echo \"provider: $line\"\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_relayed_provider_is_reachable_without_network() {
    let Some(bwrap) = bwrap("only_the_relayed_provider_is_reachable_without_network") else {
        return;
    };
    let data = scratch("ws-net-");
    let workspaces = workspaces(data.path(), bwrap);
    let (outside, outside_port) = listener().await;
    let (provider, provider_port) = listener().await;
    serve(provider, "provider-ok\n");
    let base_url = format!("http://127.0.0.1:{provider_port}/v1");

    let workspace = managed("env_offline", NetworkAccess::Disabled);
    let placed = workspaces
        .place(
            "sess_offline",
            &workspace,
            &base_url,
            &data.path().join("sessions/sess_offline"),
            &[],
        )
        .await
        .unwrap();
    // A loopback provider keeps its URL: the relay listens on its port inside the sandbox.
    assert_eq!(placed.base_url, None);
    assert!(placed.relay.is_some());
    let dir = managed_dir(data.path(), "env_offline");
    std::fs::write(
        dir.join("probe.sh"),
        probe_script(outside_port, provider_port),
    )
    .unwrap();

    let ran = run_in(&placed.placement, "exec bash /workspace/probe.sh").await;
    assert!(ran.success, "{ran:?}");
    assert_eq!(
        ran.stdout, "outside-refused\nprovider: provider-ok\n",
        "{ran:?}"
    );
    // The outside server never saw a connection.
    assert!(outside.accept().now_or_never().is_none());
    drop(placed.relay);

    // Control: with the network enabled, the same server answers.
    serve(outside, "outside\n");
    let workspace = managed("env_online", NetworkAccess::Enabled);
    let placed = workspaces
        .place(
            "sess_online",
            &workspace,
            &base_url,
            &data.path().join("sessions/sess_online"),
            &[],
        )
        .await
        .unwrap();
    assert!(placed.relay.is_none());
    let dir = managed_dir(data.path(), "env_online");
    std::fs::write(
        dir.join("probe.sh"),
        probe_script(outside_port, provider_port),
    )
    .unwrap();
    let ran = run_in(&placed.placement, "exec bash /workspace/probe.sh").await;
    assert_eq!(
        ran.stdout, "outside-reached\nprovider: provider-ok\n",
        "{ran:?}"
    );
}
