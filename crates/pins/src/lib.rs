//! The pinned native harnesses, read from `pins.env` at compile time.
//!
//! `pins.env` is the one place the pins live: `scripts/install-harnesses.sh` sources it, and
//! these constants are looked up in it by a `const fn`, so a missing key fails the build rather
//! than a run. This crate has no dependencies, so every other crate can read it.

/// The pin file as shell `KEY=value` lines.
pub const PINS_ENV: &str = include_str!("../pins.env");

pub const CODEX_PACKAGE: &str = lookup(PINS_ENV, "CODEX_PACKAGE");
pub const CODEX_VERSION: &str = lookup(PINS_ENV, "CODEX_VERSION");
pub const CODEX_NATIVE: &str = lookup(PINS_ENV, "CODEX_NATIVE");

pub const CLAUDE_CODE_PACKAGE: &str = lookup(PINS_ENV, "CLAUDE_CODE_PACKAGE");
pub const CLAUDE_CODE_VERSION: &str = lookup(PINS_ENV, "CLAUDE_CODE_VERSION");
pub const CLAUDE_CODE_NATIVE: &str = lookup(PINS_ENV, "CLAUDE_CODE_NATIVE");

pub const MINIMAX_CODE_PACKAGE: &str = lookup(PINS_ENV, "MINIMAX_CODE_PACKAGE");
pub const MINIMAX_CODE_VERSION: &str = lookup(PINS_ENV, "MINIMAX_CODE_VERSION");

pub const CODEX_ACP_PACKAGE: &str = lookup(PINS_ENV, "CODEX_ACP_PACKAGE");
pub const CODEX_ACP_VERSION: &str = lookup(PINS_ENV, "CODEX_ACP_VERSION");
pub const CODEX_ACP_NATIVE: &str = lookup(PINS_ENV, "CODEX_ACP_NATIVE");

pub const CLAUDE_AGENT_ACP_PACKAGE: &str = lookup(PINS_ENV, "CLAUDE_AGENT_ACP_PACKAGE");
pub const CLAUDE_AGENT_ACP_VERSION: &str = lookup(PINS_ENV, "CLAUDE_AGENT_ACP_VERSION");
pub const CLAUDE_AGENT_ACP_NATIVE: &str = lookup(PINS_ENV, "CLAUDE_AGENT_ACP_NATIVE");

/// The value of `key` in `KEY=value` lines; panics (at compile time, in a const) when absent.
pub const fn lookup(file: &'static str, key: &str) -> &'static str {
    let bytes = file.as_bytes();
    let key = key.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        let mut end = start;
        while end < bytes.len() && bytes[end] != b'\n' {
            end += 1;
        }
        if line_has_key(bytes, start, end, key) {
            let (_, rest) = file.split_at(start + key.len() + 1);
            let (value, _) = rest.split_at(end - start - key.len() - 1);
            return value;
        }
        start = end + 1;
    }
    panic!("pins.env has no such key");
}

/// Whether `bytes[start..end]` begins with `key=`.
const fn line_has_key(bytes: &[u8], start: usize, end: usize, key: &[u8]) -> bool {
    if end - start <= key.len() || bytes[start + key.len()] != b'=' {
        return false;
    }
    let mut i = 0;
    while i < key.len() {
        if bytes[start + i] != key[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Every `KEY=value` line of `pins.env`, in file order (what the shell sees when it sources it).
pub fn all() -> Vec<(&'static str, &'static str)> {
    PINS_ENV
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| line.split_once('='))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_whole_not_by_prefix() {
        const FILE: &str = "A_LONG=1\nA=2\n# A=3\n";
        assert_eq!(lookup(FILE, "A"), "2");
        assert_eq!(lookup(FILE, "A_LONG"), "1");
        assert_eq!(CODEX_VERSION, "0.171.0");
        assert!(all().contains(&("CLAUDE_CODE_VERSION", CLAUDE_CODE_VERSION)));
    }
}
