//! Name rules: which declared names the native client accepts, and what it renames them to.
//!
//! Both are closed sets so a declaration stays `const` data, and both are checked at Session
//! admission: a name the native client refuses, or two declared tools the native client would
//! give one name, is a 400 naming the tool, never a failed Turn.

/// Which names the native client accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamePattern {
    /// Any nonempty name.
    Any,
    /// `^[A-Za-z0-9_-]+$`: the native client builds tool names such as
    /// `mcp__<label>__<tool>` from it.
    AsciiAlphanumericUnderscoreHyphen,
    /// `^[a-zA-Z0-9_-]{1,128}$`: Codex's rule for dynamic tool names, checked by
    /// `thread/start`.
    AsciiAlphanumericUnderscoreHyphenUpTo128,
}

impl NamePattern {
    /// The rule as a regular expression, for documentation and error reports.
    pub fn regex(self) -> Option<&'static str> {
        match self {
            NamePattern::Any => None,
            NamePattern::AsciiAlphanumericUnderscoreHyphen => Some("^[A-Za-z0-9_-]+$"),
            NamePattern::AsciiAlphanumericUnderscoreHyphenUpTo128 => Some("^[a-zA-Z0-9_-]{1,128}$"),
        }
    }

    /// The rule in words, for messages ("names of …").
    pub fn describe(self) -> &'static str {
        match self {
            NamePattern::Any => "at least one character",
            NamePattern::AsciiAlphanumericUnderscoreHyphen => {
                "ASCII letters, digits, underscores or hyphens"
            }
            NamePattern::AsciiAlphanumericUnderscoreHyphenUpTo128 => {
                "1 to 128 ASCII letters, digits, underscores or hyphens"
            }
        }
    }

    pub fn matches(self, name: &str) -> bool {
        let word = |name: &str| {
            !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        };
        match self {
            NamePattern::Any => true,
            NamePattern::AsciiAlphanumericUnderscoreHyphen => word(name),
            NamePattern::AsciiAlphanumericUnderscoreHyphenUpTo128 => {
                name.len() <= 128 && word(name)
            }
        }
    }
}

/// What the model sees as a tool's name, when the native client renames declared tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeToolNames {
    /// Declared names reach the model unchanged, or in namespaces the native client keeps
    /// apart itself (Codex dynamic tools and `mcp__<label>` namespaces).
    Declared,
    /// `mcp__<server>__<tool>`, each part with every UTF-16 code unit outside
    /// `[A-Za-z0-9_-]` replaced by `_` (Claude Code: JavaScript's
    /// `replace(/[^a-zA-Z0-9_-]/g, "_")`, so a character outside the Basic Multilingual Plane
    /// becomes `__`). Functions are the tools of the adapter's server `function_server`.
    McpNormalized { function_server: &'static str },
}

impl NativeToolNames {
    /// The model's name for a function, when the native client renames it.
    pub fn function(self, name: &str) -> Option<String> {
        match self {
            NativeToolNames::Declared => None,
            NativeToolNames::McpNormalized { function_server } => {
                Some(mcp_name(function_server, name))
            }
        }
    }

    /// The model's name for a tool of a public MCP server, when the native client renames it.
    pub fn mcp_tool(self, server_label: &str, tool: &str) -> Option<String> {
        match self {
            NativeToolNames::Declared => None,
            NativeToolNames::McpNormalized { .. } => Some(mcp_name(server_label, tool)),
        }
    }
}

fn mcp_name(server: &str, tool: &str) -> String {
    format!("mcp__{}__{}", normalize(server), normalize(tool))
}

/// Every UTF-16 code unit outside `[A-Za-z0-9_-]` becomes `_`.
fn normalize(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    for c in part.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codex_pattern_bounds_length_in_bytes() {
        let p = NamePattern::AsciiAlphanumericUnderscoreHyphenUpTo128;
        assert!(p.matches(&"a".repeat(128)));
        assert!(!p.matches(&"a".repeat(129)));
        assert!(!p.matches(""));
        assert!(!p.matches("a\0b"));
        assert!(!p.matches("get.weather"));
    }

    #[test]
    fn mcp_normalization_counts_utf16_units() {
        let n = NativeToolNames::McpNormalized {
            function_server: "functions",
        };
        assert_eq!(
            n.function("get.weather").unwrap(),
            "mcp__functions__get_weather"
        );
        assert_eq!(n.function("a\0b").unwrap(), "mcp__functions__a_b");
        assert_eq!(n.function("é").unwrap(), "mcp__functions___");
        assert_eq!(n.function("a😀").unwrap(), "mcp__functions__a__");
        assert_eq!(n.mcp_tool("lab", "x y").unwrap(), "mcp__lab__x_y");
        assert_eq!(NativeToolNames::Declared.function("a b"), None);
    }
}
