"""Helpers for the mock model suite: starting `switchboard mock-model`, the SDK clients pointed
at it, and the mock's documented token rule as a test oracle.

The command is `$SWITCHBOARD_BIN mock-model` (SWITCHBOARD_BIN defaults to
target/debug/switchboard); SWITCHBOARD_MOCK_MODEL_CMD replaces the whole command (for example
`target/debug/examples/mock_model`)."""

import json
import os
import pathlib
import re
import shlex
import subprocess

import anthropic
import openai

ROOT = pathlib.Path(__file__).resolve().parents[3]


def mock_model_command() -> list:
    override = os.environ.get("SWITCHBOARD_MOCK_MODEL_CMD")
    if override:
        return shlex.split(override)
    binary = os.environ.get("SWITCHBOARD_BIN", str(ROOT / "target" / "debug" / "switchboard"))
    return [binary, "mock-model"]


class MockModel:
    """A running mock: its base URL (first stdout line) and its journal file."""

    def __init__(self, tmp: pathlib.Path, scenario=None, extra=()):
        self.journal_path = tmp / "journal.jsonl"
        args = ["--listen", "127.0.0.1:0", "--journal", str(self.journal_path), *extra]
        if scenario is not None:
            script = tmp / "scenario.json"
            script.write_text(json.dumps(scenario))
            args += ["--script", str(script)]
        self.proc = subprocess.Popen(
            mock_model_command() + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        # The first line is the base URL, flushed before serving: no polling needed.
        self.first_line = self.proc.stdout.readline()
        assert self.first_line.startswith("http://127.0.0.1:"), (
            self.first_line,
            self.proc.stderr.read() if self.proc.poll() is not None else "",
        )
        self.base_url = self.first_line.strip()

    def journal(self) -> list:
        """Every request so far. Entries are written before their reply is sent."""
        with open(self.journal_path) as f:
            return [json.loads(line) for line in f]

    def openai(self) -> openai.OpenAI:
        return openai.OpenAI(base_url=self.base_url + "/v1", api_key="dummy", max_retries=0)

    def anthropic(self) -> anthropic.Anthropic:
        return anthropic.Anthropic(base_url=self.base_url, api_key="dummy", max_retries=0)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return self.proc.returncode


WEATHER_TOOL_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


_TOKEN = re.compile(r"[^\W_]+|[^\w\s]|_")


def count_tokens(text: str) -> int:
    """A maximal run of letters and digits is one token, every other non-whitespace character
    is one token (docs/mock-model.md)."""
    return len(_TOKEN.findall(text))
