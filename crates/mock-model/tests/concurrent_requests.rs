//! Concurrent requests are numbered once each, and rules' `times` hold under concurrency.

use crate::common;

use std::collections::BTreeSet;

use common::post_json;
use serde_json::json;
use switchboard_mock_model::{Reply, Rule, Scenario};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_gets_its_own_number() {
    let scenario = Scenario::new(vec![Rule::from(Reply::text("limited")).times(5)])
        .with_otherwise(Reply::text("rest"));
    let model = common::start(Some(scenario)).await;
    let body = json!({"model": "m", "input": "q", "stream": false});
    let requests = (0..40).map(|_| post_json(&model, "/v1/responses", &body));
    let replies = futures::future::join_all(requests).await;
    let ids: BTreeSet<String> = replies
        .iter()
        .map(|(_, r)| r["id"].as_str().unwrap().to_owned())
        .collect();
    let expected: BTreeSet<String> = (1..=40).map(|n| format!("resp_{n}")).collect();
    assert_eq!(ids, expected);
    let limited = replies
        .iter()
        .filter(|(_, r)| r["output"][0]["content"][0]["text"] == "limited")
        .count();
    assert_eq!(limited, 5);
    assert_eq!(model.journal().len(), 40);
}
