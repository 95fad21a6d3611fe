//! Which native harness runs a Session, and which protocol its model provider speaks.

use serde::{Deserialize, Serialize};

/// A native harness (`x_agents_core.harness`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HarnessId {
    Codex,
    ClaudeCode,
    MinimaxCode,
}

impl HarnessId {
    pub const ALL: [HarnessId; 3] = [
        HarnessId::Codex,
        HarnessId::ClaudeCode,
        HarnessId::MinimaxCode,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            HarnessId::Codex => "codex",
            HarnessId::ClaudeCode => "claude_code",
            HarnessId::MinimaxCode => "minimax_code",
        }
    }

    pub fn parse(s: &str) -> Option<HarnessId> {
        HarnessId::ALL.into_iter().find(|h| h.as_str() == s)
    }
}

/// The wire protocol a model provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderProtocol {
    Responses,
    Anthropic,
    ChatCompletions,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `as_str` is the serde spelling, so `parse` accepts exactly what the wire carries.
    #[test]
    fn as_str_is_the_serde_spelling() {
        for h in HarnessId::ALL {
            let json = serde_json_string(h);
            assert_eq!(json, format!("\"{}\"", h.as_str()));
            assert_eq!(HarnessId::parse(h.as_str()), Some(h));
        }
    }

    fn serde_json_string(h: HarnessId) -> String {
        serde_json::to_string(&h).unwrap()
    }
}
