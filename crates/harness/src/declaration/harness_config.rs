//! `x_agents_core.harness_config`: the native settings an adapter applies.
//!
//! Saving keeps any object; Session admission checks it against the declaration, so a member
//! the adapter would refuse at preparation (or silently drop) is a 400 naming the member.

/// The members a harness applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HarnessConfig {
    /// Not checked at admission: the adapter reads no member and refuses none.
    Unchecked,
    /// Only these members, each a string among its values; `&[]` means `{}` only.
    Members(&'static [HarnessConfigMember]),
}

/// One member and its accepted string values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HarnessConfigMember {
    pub name: &'static str,
    pub values: &'static [&'static str],
}
