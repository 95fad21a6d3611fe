//! Running a scenario: pick the rule that answers a request and resolve its reply.
//!
//! Rules are tried in order; the first whose conditions all hold and whose `times` is not used
//! up answers. A reply without content is completed by the built-in default, so rules can add
//! a delay or a drop to the usual answer. The [`Script`] is the only mutable state (request
//! count, how often each rule fired), kept behind one lock so concurrent requests are numbered
//! and matched consistently.

use std::time::Duration;

use serde_json::{Value, json};

use crate::answer::{Answer, Block, Call};
use crate::builtin;
use crate::request::RequestView;
use crate::scenario::{DropReply, Reply, Scenario, When};
use crate::shell;

/// Which part of the scenario answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Rule { index: usize, name: Option<String> },
    Otherwise,
    Builtin,
}

impl Source {
    /// The journal's `matched` member.
    pub fn summary(&self) -> Value {
        match self {
            Source::Rule { index, name } => json!({"rule": index, "name": name}),
            Source::Otherwise => json!("otherwise"),
            Source::Builtin => json!("builtin"),
        }
    }
}

/// The resolved reply, minus timing.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Answer(Answer),
    Error {
        status: u16,
        message: String,
        /// A verbatim body replacing the provider's error shape.
        body: Option<Value>,
    },
    /// Close the connection without a response.
    Drop,
}

/// Everything needed to send one reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The 1-based number of this model request.
    pub request: u64,
    pub source: Source,
    pub outcome: Outcome,
    pub delay: Option<Duration>,
    pub interval: Option<Duration>,
    /// Close the connection after this many stream events.
    pub drop_after: Option<u32>,
}

/// A scenario plus what has happened so far.
#[derive(Debug, Default)]
pub struct Script {
    scenario: Scenario,
    fired: Vec<u32>,
    requests: u64,
}

impl Script {
    pub fn new(scenario: Option<Scenario>) -> Self {
        let scenario = scenario.unwrap_or_default();
        Script {
            fired: vec![0; scenario.rules.len()],
            scenario,
            requests: 0,
        }
    }

    /// Numbers the request and decides its reply.
    pub fn plan(&mut self, view: &RequestView) -> Plan {
        self.requests += 1;
        let request = self.requests;
        for (index, rule) in self.scenario.rules.iter().enumerate() {
            let used_up = rule.times.is_some_and(|times| self.fired[index] >= times);
            if !used_up && matches(&rule.when, view, request) {
                self.fired[index] += 1;
                let source = Source::Rule {
                    index,
                    name: rule.name.clone(),
                };
                return resolve(&rule.reply, view, request, source);
            }
        }
        match &self.scenario.otherwise {
            Some(reply) => resolve(reply, view, request, Source::Otherwise),
            None => resolve(&Reply::default(), view, request, Source::Builtin),
        }
    }
}

/// True when every condition present in `when` holds for this request.
pub fn matches(when: &When, view: &RequestView, request: u64) -> bool {
    let last_text = view.last.as_ref().map_or("", |item| item.text.as_str());
    let has_outputs = !view.turn_outputs.is_empty();
    when.protocol.is_none_or(|p| p == view.protocol)
        && when
            .last_kind
            .is_none_or(|k| view.last.as_ref().is_some_and(|item| item.kind == k))
        && when
            .last_text_contains
            .as_deref()
            .is_none_or(|needle| last_text.contains(needle))
        && when
            .last_text_equals
            .as_deref()
            .is_none_or(|text| last_text == text)
        && when.user_text_contains.as_deref().is_none_or(|needle| {
            view.last_user_text
                .as_deref()
                .is_some_and(|t| t.contains(needle))
        })
        && when
            .tool_offered
            .as_deref()
            .is_none_or(|name| view.find_tool(name).is_some())
        && when
            .tool_output_present
            .is_none_or(|present| present == has_outputs)
        && when
            .tool_output_contains
            .as_deref()
            .is_none_or(|needle| view.turn_outputs.iter().any(|o| o.text.contains(needle)))
        && when
            .json_schema
            .is_none_or(|wanted| wanted == view.answer_schema.is_some())
        && when.stream.is_none_or(|stream| stream == view.stream)
        && when.request.is_none_or(|n| n == request)
}

fn resolve(reply: &Reply, view: &RequestView, request: u64, source: Source) -> Plan {
    let outcome = if let Some(error) = &reply.error {
        Outcome::Error {
            status: error.status,
            message: error
                .message
                .clone()
                .unwrap_or_else(|| format!("scripted error {}", error.status)),
            body: error.body.clone(),
        }
    } else if reply.drop == Some(DropReply::Now(true)) {
        Outcome::Drop
    } else {
        let mut answer = if reply.has_content() {
            scripted_answer(reply, view)
        } else {
            builtin::answer(view)
        };
        answer.deltas = reply.deltas.unwrap_or(1);
        Outcome::Answer(answer)
    };
    Plan {
        request,
        source,
        outcome,
        delay: reply.delay_ms.map(Duration::from_millis),
        interval: reply.interval_ms.map(Duration::from_millis),
        drop_after: match reply.drop {
            Some(DropReply::AfterEvents { after_events }) => Some(after_events),
            _ => None,
        },
    }
}

fn scripted_answer(reply: &Reply, view: &RequestView) -> Answer {
    if let Some(value) = &reply.structured {
        return builtin::structured(view, value.clone());
    }
    let searches = reply.web_searches.iter().cloned().map(Block::Search);
    let text = reply.text.iter().map(|t| Block::Text(t.clone()));
    let shell = reply.shell.iter().map(|c| shell::block(c, view));
    let calls = reply
        .tool_calls
        .iter()
        .map(|call| Block::Call(Call::resolve(call, view)));
    Answer {
        blocks: searches.chain(text).chain(shell).chain(calls).collect(),
        deltas: 1,
    }
}
