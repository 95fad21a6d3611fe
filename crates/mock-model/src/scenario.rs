//! The scenario: an ordered list of rules, each a condition on the request and a reply.
//!
//! A scenario is data, not code, so the same file drives the Rust tests, the Python SDK tests and
//! a user's CI. It is read from JSON (`switchboard mock-model --script FILE`) or built in Rust
//! with the constructors below. Every member is optional except a rule's `reply`; unknown members
//! are rejected so a typo fails loudly instead of silently matching everything.
//!
//! ```json
//! {"rules": [
//!   {"when": {"tool_offered": "get_weather", "tool_output_present": false},
//!    "reply": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}},
//!   {"when": {"last_kind": "tool_output"}, "reply": {"text": "It is sunny.", "deltas": 3}}
//! ]}
//! ```
//!
//! How a request is matched and a reply resolved is [`crate::script`]'s job; this module only
//! says what a scenario *is* and checks that it makes sense.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ScenarioError;
use crate::request::{ItemKind, Protocol};

/// Rules tried in order; the first that matches (and has not used up its `times`) answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// The reply when no rule matches. Absent: the built-in default behaviour answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub otherwise: Option<Reply>,
}

/// One condition and its reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// A label that shows up in the journal next to the requests this rule answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default)]
    pub when: When,
    pub reply: Reply,
    /// Fire at most this many times, then let later rules answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
}

/// Conditions on a request; all that are present must hold. An empty `when` matches everything.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct When {
    /// Which endpoint was called: `responses`, `anthropic` (Messages) or `chat`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<Protocol>,
    /// The kind of the last input item: `user`, `assistant`, `system`, `developer`,
    /// `tool_call`, `tool_output` or `other`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_kind: Option<ItemKind>,
    /// The last input item's text contains this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_text_contains: Option<String>,
    /// The last input item's text is exactly this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_text_equals: Option<String>,
    /// The user message that opened the current turn contains this. Claude Code appends its
    /// own text after a turn's first user message, so this is how a rule tells a Subagent's
    /// requests (opened by its task) from its root's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_text_contains: Option<String>,
    /// A tool of this name is offered (a namespaced tool also answers to `<namespace>__<name>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_offered: Option<String>,
    /// Whether a tool output arrived in the current turn (after the last user message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_output_present: Option<bool>,
    /// A tool output of the current turn contains this (wherever the harness put its own text
    /// after it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_output_contains: Option<String>,
    /// Whether the request asks for a JSON-schema answer (`text.format`, `response_format`,
    /// Anthropic `output_format`, or Claude Code's `StructuredOutput` tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<bool>,
    /// Whether the client asked for a streamed reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// This is the N-th model request the server received (1-based; HEAD, count_tokens and
    /// unknown routes do not count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<u64>,
}

/// What to answer. Content (`text`, `tool_calls`, `structured`), an `error`, or a `drop`;
/// with no content at all the built-in default answers, which lets `{"delay_ms": 500}` mean
/// "the usual answer, late".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    /// Assistant text. Comes before any tool calls in the output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Stream the text in this many deltas (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deltas: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Searches the provider ran itself, in order, before the text: a Responses
    /// `web_search_call` output item, or Anthropic `server_tool_use` + `web_search_tool_result`
    /// blocks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub web_searches: Vec<WebSearch>,
    /// A command line to run with the harness's own shell tool (Codex `exec_command`, Claude
    /// Code `Bash`, …: whichever the request offers), after the text and before `tool_calls`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    /// A JSON answer: the text of the reply (OpenAI), or the `StructuredOutput` tool call when
    /// Claude Code offers that tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorReply>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<DropReply>,
    /// Wait this long before answering (the journal entry is written first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Wait this long between streamed events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_ms: Option<u64>,
}

/// One tool call in a reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    pub name: String,
    /// The arguments as JSON. A JSON *string* is sent verbatim as the arguments text (handy for
    /// malformed arguments). Absent: generated from the offered tool's schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// OpenAI Responses namespace (Codex MCP tools). Absent: taken from the offered tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The call id (`call_id` / `tool_use.id` / `tool_calls[].id`). Absent: derived from the
    /// request number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// One provider-side web search and the pages it found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSearch {
    pub query: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<WebSource>,
}

/// A page a web search found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSource {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// An HTTP error in the provider's own error shape, or a verbatim body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorReply {
    pub status: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Sent as the whole JSON body instead of the provider's error shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

/// Close the connection: `true` before any response byte, or `{"after_events": N}` after
/// the response head and N stream events (a non-streaming reply is cut before its body).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DropReply {
    Now(bool),
    AfterEvents { after_events: u32 },
}

impl Scenario {
    pub fn new(rules: Vec<Rule>) -> Self {
        Scenario {
            rules,
            otherwise: None,
        }
    }

    /// Parses and checks a scenario from JSON text.
    pub fn from_json(text: &str) -> Result<Self, ScenarioError> {
        let scenario: Scenario = serde_json::from_str(text).map_err(ScenarioError::Parse)?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// Reads, parses and checks a scenario file.
    pub fn load(path: &Path) -> Result<Self, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::from_json(&text)
    }

    pub fn with_otherwise(mut self, reply: Reply) -> Self {
        self.otherwise = Some(reply);
        self
    }

    /// Rejects replies that could not be answered as written.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        for (index, rule) in self.rules.iter().enumerate() {
            rule.reply
                .validate()
                .map_err(|reason| ScenarioError::Invalid {
                    at: format!("rules[{index}].reply"),
                    reason,
                })?;
            if rule.times == Some(0) {
                return Err(ScenarioError::Invalid {
                    at: format!("rules[{index}].times"),
                    reason: "a rule that may fire 0 times never fires".into(),
                });
            }
        }
        if let Some(reply) = &self.otherwise {
            reply.validate().map_err(|reason| ScenarioError::Invalid {
                at: "otherwise".into(),
                reason,
            })?;
        }
        Ok(())
    }
}

impl Rule {
    pub fn new(when: When, reply: Reply) -> Self {
        Rule {
            name: None,
            when,
            reply,
            times: None,
        }
    }

    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    pub fn times(mut self, times: u32) -> Self {
        self.times = Some(times);
        self
    }
}

impl Reply {
    pub fn text(text: impl Into<String>) -> Self {
        Reply {
            text: Some(text.into()),
            ..Reply::default()
        }
    }

    pub fn tool_calls(calls: Vec<ToolCall>) -> Self {
        Reply {
            tool_calls: calls,
            ..Reply::default()
        }
    }

    /// A provider-side search for `query` (add text with [`Reply::with_text`]).
    pub fn web_search(query: impl Into<String>, sources: Vec<WebSource>) -> Self {
        Reply {
            web_searches: vec![WebSearch {
                query: query.into(),
                sources,
            }],
            ..Reply::default()
        }
    }

    /// Runs `command` with the harness's own shell tool ([`Reply::shell`]).
    pub fn shell(command: impl Into<String>) -> Self {
        Reply {
            shell: Some(command.into()),
            ..Reply::default()
        }
    }

    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    pub fn structured(value: Value) -> Self {
        Reply {
            structured: Some(value),
            ..Reply::default()
        }
    }

    pub fn error(status: u16, message: impl Into<String>) -> Self {
        Reply {
            error: Some(ErrorReply {
                status,
                message: Some(message.into()),
                body: None,
            }),
            ..Reply::default()
        }
    }

    /// Close the connection without answering.
    pub fn drop_connection() -> Self {
        Reply {
            drop: Some(DropReply::Now(true)),
            ..Reply::default()
        }
    }

    /// Send the response head and `events` stream events, then close the connection.
    pub fn drop_after_events(mut self, events: u32) -> Self {
        self.drop = Some(DropReply::AfterEvents {
            after_events: events,
        });
        self
    }

    pub fn deltas(mut self, deltas: u32) -> Self {
        self.deltas = Some(deltas);
        self
    }

    pub fn delay_ms(mut self, ms: u64) -> Self {
        self.delay_ms = Some(ms);
        self
    }

    pub fn interval_ms(mut self, ms: u64) -> Self {
        self.interval_ms = Some(ms);
        self
    }

    /// True when the reply names no content, so the built-in default supplies it.
    pub(crate) fn has_content(&self) -> bool {
        self.text.is_some()
            || self.shell.is_some()
            || !self.tool_calls.is_empty()
            || !self.web_searches.is_empty()
            || self.structured.is_some()
    }

    fn validate(&self) -> Result<(), String> {
        if let Some(error) = &self.error {
            if !(400..=599).contains(&error.status) {
                return Err(format!("error.status {} is not in 400..=599", error.status));
            }
            if self.has_content() || self.drop.is_some() {
                return Err("an error reply cannot also carry content or a drop".into());
            }
        }
        if self.structured.is_some()
            && (self.text.is_some()
                || self.shell.is_some()
                || !self.tool_calls.is_empty()
                || !self.web_searches.is_empty())
        {
            return Err(
                "a structured reply cannot also carry text, a shell command, tool calls or web searches"
                    .into(),
            );
        }
        if self.shell.as_deref().is_some_and(|c| c.trim().is_empty()) {
            return Err("shell needs a command line".into());
        }
        if self.web_searches.iter().any(|w| w.query.is_empty()) {
            return Err("a web search needs a query".into());
        }
        match &self.drop {
            Some(DropReply::Now(false)) => {
                return Err("drop: false means nothing; leave it out".into());
            }
            Some(DropReply::Now(true)) if self.has_content() => {
                return Err("drop: true sends nothing, so content would be ignored".into());
            }
            _ => {}
        }
        if self.deltas == Some(0) {
            return Err("deltas must be at least 1".into());
        }
        if self.tool_calls.iter().any(|c| c.name.is_empty()) {
            return Err("a tool call needs a name".into());
        }
        Ok(())
    }
}

impl ToolCall {
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            name: name.into(),
            arguments: Some(arguments),
            ..ToolCall::default()
        }
    }

    /// A call whose arguments are generated from the offered tool's schema.
    pub fn generated(name: impl Into<String>) -> Self {
        ToolCall {
            name: name.into(),
            ..ToolCall::default()
        }
    }

    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }
}

impl From<Reply> for Rule {
    /// A rule that always matches.
    fn from(reply: Reply) -> Self {
        Rule::new(When::default(), reply)
    }
}
