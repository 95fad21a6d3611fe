//! A harness's heartbeat entry: `{harness, available, version, state, capabilities}`.
//!
//! `available` and `version` come from [`crate::probe`]: the executable must run and be the
//! pinned version. `capabilities` is what the adapter implements, narrowed to the harness
//! declaration's maximum: a Runtime may advertise less than the declaration, never more (Core
//! rejects "capability X widens the Harness declaration"), so an adapter that implements more
//! than is declared simply does not offer it.

use serde_json::Value;
use switchboard_harness::{Capability, Declaration};
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::{Capabilities, HarnessAdvertisement, HarnessState};

use crate::probe::{Installation, Status};

/// The advertisement for a probed install of an adapter implementing `implemented`.
pub fn advertisement(
    installation: &Installation,
    implemented: Capabilities,
) -> HarnessAdvertisement {
    let harness = installation.install.harness;
    let state = match &installation.status {
        Status::Ready { .. } => HarnessState::Available,
        Status::Missing => HarnessState::Missing,
        Status::Unrunnable(_) | Status::VersionMismatch { .. } => HarnessState::Failed {
            reason: installation.describe(),
        },
    };
    // The protocol's rule: version null unless available (a mismatched version is not "the"
    // version of anything this Runtime can run); `new` applies it.
    HarnessAdvertisement::new(
        harness,
        state,
        installation.found_version().map(str::to_owned),
        capabilities(harness, implemented),
    )
}

/// What the Runtime offers for `harness`: `implemented`, narrowed to its declaration.
pub fn capabilities(harness: HarnessId, implemented: Capabilities) -> Capabilities {
    narrow(implemented, declaration_of(harness))
}

/// The declaration of a protocol harness id.
pub fn declaration_of(harness: HarnessId) -> &'static Declaration {
    // The protocol re-exports the execution model's `HarnessId` (both name it from
    // `switchboard-vocabulary`), so the id passes through unchanged.
    switchboard_harness::declaration(harness)
}

/// `implemented` with every capability outside the declaration turned off.
///
/// The wire struct and the [`Capability`] enum name the same 30 fields; going through the wire
/// names keeps this correct without a 30-arm match that could drift from either.
pub fn narrow(implemented: Capabilities, declaration: &Declaration) -> Capabilities {
    let Ok(Value::Object(mut fields)) = serde_json::to_value(implemented) else {
        unreachable!("Capabilities serializes as an object of booleans");
    };
    for (name, value) in fields.iter_mut() {
        let declared = Capability::parse(name).is_some_and(|c| declaration.has_capability(c));
        if !declared {
            *value = Value::Bool(false);
        }
    }
    let Ok(narrowed) = serde_json::from_value(Value::Object(fields)) else {
        unreachable!("the same members deserialize back into Capabilities");
    };
    narrowed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every wire capability is a [`Capability`], so narrowing can never keep an undeclared one
    /// just because its name is unknown to the declaration side.
    #[test]
    fn every_wire_field_is_a_declared_capability_name() {
        let Value::Object(fields) = serde_json::to_value(Capabilities::default()).unwrap() else {
            panic!()
        };
        assert_eq!(fields.len(), Capability::ALL.len());
        for name in fields.keys() {
            assert!(Capability::parse(name).is_some(), "{name}");
        }
    }

    #[test]
    fn narrowing_drops_what_the_declaration_does_not_have() {
        let all_on: Capabilities = serde_json::from_value(Value::Object(
            Capability::ALL
                .iter()
                .map(|c| (c.as_str().to_owned(), Value::Bool(true)))
                .collect(),
        ))
        .unwrap();
        for harness in [
            HarnessId::Codex,
            HarnessId::ClaudeCode,
            HarnessId::MinimaxCode,
        ] {
            let declaration = declaration_of(harness);
            let narrowed = serde_json::to_value(narrow(all_on, declaration)).unwrap();
            for c in Capability::ALL {
                assert_eq!(
                    narrowed[c.as_str()],
                    Value::Bool(declaration.has_capability(c)),
                    "{harness:?} {}",
                    c.as_str()
                );
            }
        }
    }
}
