"""Helpers for the MiniMax Code suites (test_minimax_*.py).

MiniMax Code (`mcode`) cannot be installed here (the npm registry answers 404), so a launcher
stands in for it: `crates/acp/tests/fixtures/mcode_standin.py` reads the `config.yaml` the
adapter's `minimax_code` profile wrote and starts the real ACP agent codex-acp from it. The
server finds the launcher through `SWITCHBOARD_MINIMAX_CODE_BIN`, as it would find an installed
`mcode`. MiniMax needs the model's token limits, which the deployment's default providers do not
carry, so each Session brings its own provider bundle (the mock model)."""

import os
import pathlib

import pytest

from conftest import ROOT
from session_support import Harness

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


def install_standin(directory: pathlib.Path) -> pathlib.Path:
    """Writes an `mcode` launcher into `directory` and returns its path."""
    launcher = directory / "mcode"
    launcher.write_text(f"#!/bin/sh\nexec python3 '{STANDIN}' --codex-acp '{codex_acp()}' \"$@\"\n")
    launcher.chmod(0o755)
    return launcher


class MinimaxHarness(Harness):
    """minimax_code: selected per Session with `x_agents_core`, with a provider bundle that
    carries the token limits; functions are tools of the adapter's MCP server `functions`."""

    name = "minimax_code"
    model = MODEL
    process = "mcode"

    def __init__(self, mock_base_url):
        self.extra_body = {
            "x_agents_core": {
                "harness": "minimax_code",
                "model_provider": {
                    "protocol": "responses",
                    "base_url": mock_base_url + "/v1",
                    "api_key": "mock-key",
                    "context_window": 200000,
                    "max_output_tokens": 8192,
                },
            }
        }
