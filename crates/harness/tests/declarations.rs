//! The declaration values themselves: identity, pinned native versions, providers, defaults.

use switchboard_execution::*;
use switchboard_harness::{
    Capability, DEFAULT_HARNESS, PlacementKind, StdioCwd, declaration, declarations,
};

#[test]
fn identity_and_pinned_versions() {
    let table = [
        (HarnessId::Codex, "Codex", "@openai/codex", "0.171.0"),
        (
            HarnessId::ClaudeCode,
            "Claude Code",
            "@anthropic-ai/claude-code",
            "2.1.332",
        ),
        (
            HarnessId::MinimaxCode,
            "MiniMax Code",
            "@minimax-ai/code",
            "0.4.12",
        ),
    ];
    for (h, label, package, version) in table {
        let d = declaration(h);
        assert_eq!(
            (d.harness, d.label, d.native.name, d.native.version),
            (h, label, package, version)
        );
    }
    assert_eq!(DEFAULT_HARNESS, HarnessId::Codex);
    assert!(std::ptr::eq(
        declaration(HarnessId::Codex),
        &declarations::CODEX
    ));
}

#[test]
fn providers_in_order_first_is_default() {
    use ProviderProtocol::*;
    let table: [(HarnessId, &[(ProviderProtocol, bool)]); 3] = [
        (HarnessId::Codex, &[(Responses, false)]),
        (HarnessId::ClaudeCode, &[(Anthropic, false)]),
        (
            HarnessId::MinimaxCode,
            &[
                (Anthropic, true),
                (Responses, true),
                (ChatCompletions, true),
            ],
        ),
    ];
    for (h, want) in table {
        let d = declaration(h);
        let got: Vec<_> = d
            .providers
            .iter()
            .map(|p| (p.protocol, p.requires_token_limits))
            .collect();
        assert_eq!(got, want, "{}", h.as_str());
        assert_eq!(d.default_protocol(), want[0].0);
    }
}

#[test]
fn feature_columns() {
    // (structured output, binary64, tool_search, function param object root, stdio cwd rule)
    let table = [
        (HarnessId::Codex, true, false, false, false, StdioCwd::Any),
        (
            HarnessId::ClaudeCode,
            true,
            true,
            true,
            true,
            StdioCwd::WorkspaceDirectory,
        ),
        (
            HarnessId::MinimaxCode,
            false,
            false,
            false,
            true,
            StdioCwd::Rejected,
        ),
    ];
    for (h, json_schema, binary64, tool_search, object_root, cwd) in table {
        let d = declaration(h);
        assert_eq!(
            d.structured_output.json_schema,
            json_schema,
            "{}",
            h.as_str()
        );
        assert_eq!(
            d.structured_output.binary64_output_schema,
            binary64,
            "{}",
            h.as_str()
        );
        assert_eq!(d.tool_search, tool_search, "{}", h.as_str());
        assert_eq!(
            d.functions.parameters_object_root,
            object_root,
            "{}",
            h.as_str()
        );
        assert_eq!(d.mcp.stdio_cwd, cwd, "{}", h.as_str());
        assert!(d.functions.tools, "every harness runs functions");
        assert_eq!(d.placements, PlacementKind::ALL);
        assert!(d.has_capability(Capability::ExecutionControls));
    }
}
