//! Images in user input reach the model: an inline data URL as a base64 image block, an https
//! URL as a URL image block, in the order of the input parts.

use crate::support;

use support::*;
use switchboard_protocol::{ExecutionControls, InputPart, TurnRequest};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_images_reach_the_model() {
    let Some(binary) = claude_binary("input_images_reach_the_model") else {
        return;
    };
    let session = session(binary, None, vec![], ExecutionControls::default()).await;
    let turn = TurnRequest {
        run_id: "run_1".into(),
        turn_id: "turn_1".into(),
        input: vec![
            InputPart::InputText {
                text: "What is in these pictures?".into(),
            },
            InputPart::InputImage {
                image_url: format!("data:image/png;base64,{PNG}"),
            },
            InputPart::InputImage {
                image_url: "https://example.com/cat.png".into(),
            },
        ],
    };
    let mut turn = session.executor.start_turn(turn).await.unwrap();
    let events = until_terminal(&mut turn).await;
    assert_completed(&events);
    let requests = session.model_requests();
    let first_user = requests[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap()
        .clone();
    let blocks = first_user["content"].as_array().unwrap();
    let images: Vec<_> = blocks.iter().filter(|b| b["type"] == "image").collect();
    assert_eq!(images.len(), 2, "{first_user}");
    assert_eq!(images[0]["source"]["type"], "base64");
    assert_eq!(images[0]["source"]["media_type"], "image/png");
    assert_eq!(images[0]["source"]["data"], PNG);
    assert_eq!(images[1]["source"]["type"], "url");
    assert_eq!(images[1]["source"]["url"], "https://example.com/cat.png");
    session.model.shutdown().await;
}
