//! A measurement (ignored by default; `--run-ignored only`): a prepared Session's function Turn
//! on a shared app-server against the same Turn on a process of its own, interleaved (ABBA) in
//! one run, so only the ratio means anything. The shared side has two other idle Sessions on
//! its process.

use crate::support;

use std::time::{Duration, Instant};

use support::*;

const ITERS: usize = 20;

fn p50(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run with --run-ignored only --nocapture"]
async fn a_shared_session_turn_against_an_own_process_turn() {
    let Some(binary) = codex_binary("a_shared_session_turn_against_an_own_process_turn") else {
        return;
    };
    let model = weather_model(r#"{"city":"Oslo"}"#).await;
    let url = model.base_url();
    let (_root, adapter, host) = sharing_adapter(binary.clone());
    let mut neighbours = Vec::new();
    for name in ["n1", "n2"] {
        neighbours.push(prepare_fresh(&adapter, named_configuration(&url, name), "codex").await);
    }
    let (_shared_state, shared) =
        prepare_fresh(&adapter, named_configuration(&url, "timed"), "codex").await;
    assert_eq!(host.process_ids().len(), 1);
    let own_model = weather_model(r#"{"city":"Oslo"}"#).await;
    let (_own_state, own) = session(
        binary,
        &own_model.base_url(),
        vec![get_weather(), only_tool("timed")],
    )
    .await;

    let timed = async |executor: &dyn switchboard_protocol::SessionExecutor, n: u32| {
        let started = Instant::now();
        weather_turn(executor, n, &format!("turn {n}")).await;
        started.elapsed()
    };
    // Warm-up.
    timed(shared.as_ref(), 1).await;
    timed(own.as_ref(), 1).await;
    let (mut on_shared, mut on_own) = (Vec::new(), Vec::new());
    for i in 0..ITERS {
        let n = u32::try_from(i).unwrap() + 2;
        if i % 2 == 0 {
            on_shared.push(timed(shared.as_ref(), n).await);
            on_own.push(timed(own.as_ref(), n).await);
        } else {
            on_own.push(timed(own.as_ref(), n).await);
            on_shared.push(timed(shared.as_ref(), n).await);
        }
    }
    let (shared_p50, own_p50) = (p50(&mut on_shared), p50(&mut on_own));
    println!(
        "prepared function Turn p50 over {ITERS}: shared {shared_p50:.1?}, own process \
         {own_p50:.1?}, ratio {:.3}",
        shared_p50.as_secs_f64() / own_p50.as_secs_f64()
    );
}
