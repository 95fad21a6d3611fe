//! Resource identifiers: a type prefix and 32 lowercase hex digits of a UUIDv7.
//!
//! IDs are opaque to callers. A string that does not have the exact shape of an ID of the
//! expected kind is treated as a missing resource (404), never as a validation error, so that
//! probing reveals nothing.

use rand::RngCore;

/// A resource kind and its ID prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Agent,
    Session,
    Turn,
    Item,
    Event,
    Call,
    ApiKey,
    Request,
    /// One execution of a Turn on a Runtime (Core–Runtime frames carry it).
    Run,
    /// One delivery of an admitted function result to a Runtime (its receipt names it).
    Delivery,
    /// An Environment: a workspace Sessions run in.
    Environment,
    /// One request to a Runtime about a workspace (`workspace_*` frames).
    WorkspaceRequest,
    /// A Vault: a Project's collection of MCP credentials.
    Vault,
    /// A credential in a Vault.
    Credential,
    /// A file of a managed Environment's configuration (`environment.files[].id`).
    File,
    /// A Subagent of a multi-agent Session.
    Subagent,
    /// A Project: the unit of isolation every resource belongs to.
    Project,
}

impl IdKind {
    pub fn prefix(self) -> &'static str {
        match self {
            IdKind::Agent => "agent_",
            IdKind::Session => "sess_",
            IdKind::Turn => "turn_",
            IdKind::Item => "item_",
            IdKind::Event => "evt_",
            IdKind::Call => "call_",
            IdKind::ApiKey => "key_",
            IdKind::Request => "req_",
            IdKind::Run => "run_",
            IdKind::Delivery => "dlv_",
            IdKind::Environment => "env_",
            IdKind::WorkspaceRequest => "wsreq_",
            IdKind::Vault => "vault_",
            IdKind::Credential => "cred_",
            IdKind::File => "file_",
            IdKind::Subagent => "subagent_",
            IdKind::Project => "proj_",
        }
    }
}

/// A fresh ID of `kind`.
pub fn new_id(kind: IdKind) -> String {
    let uuid = if kind == IdKind::Request {
        // Request IDs need no ordering; 128 random bits.
        let mut b = [0u8; 16];
        rand::rng().fill_bytes(&mut b);
        uuid::Uuid::from_bytes(b)
    } else {
        uuid::Uuid::now_v7()
    };
    // Written in place: an ID is made on every request (its request ID), so no per-byte
    // formatting and no intermediate string.
    let mut buf = [0u8; uuid::fmt::Simple::LENGTH];
    let hex = uuid.simple().encode_lower(&mut buf);
    let mut id = String::with_capacity(kind.prefix().len() + hex.len());
    id.push_str(kind.prefix());
    id.push_str(hex);
    id
}

/// Whether `id` has the exact shape of an ID of `kind`.
pub fn is_valid(kind: IdKind, id: &str) -> bool {
    id.strip_prefix(kind.prefix()).is_some_and(|h| {
        h.len() == 32
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_their_kind_shape() {
        for kind in [IdKind::Agent, IdKind::Session, IdKind::Request] {
            let id = new_id(kind);
            assert!(is_valid(kind, &id), "{id}");
            assert!(!is_valid(IdKind::Turn, &id));
        }
        assert!(!is_valid(IdKind::Agent, "agent_XYZ"));
        assert!(!is_valid(
            IdKind::Agent,
            "agent_0123456789abcdef0123456789ABCDEF"
        ));
    }

    #[test]
    fn later_ids_sort_after_earlier_ones() {
        let a = new_id(IdKind::Agent);
        let b = new_id(IdKind::Agent);
        assert!(a < b);
    }
}
