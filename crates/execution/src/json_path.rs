//! JSON paths of members and elements, as `param` and messages spell them (`agent.tools[2].name`).
//!
//! Below both the object reader and the messages, which each need them.

/// The path of member `key` under `parent` (`""` is the body root).
pub fn member_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// The path of element `index` of the array at `parent`.
pub fn element_path(parent: &str, index: usize) -> String {
    format!("{parent}[{index}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_from_the_root() {
        assert_eq!(member_path("", "tools"), "tools");
        assert_eq!(member_path("agent", "tools"), "agent.tools");
        assert_eq!(element_path("agent.tools", 2), "agent.tools[2]");
    }
}
