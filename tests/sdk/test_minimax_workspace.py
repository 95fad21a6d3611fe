"""minimax_code Sessions on a managed (`openai_hosted`) workspace, through the official SDK, the
local Runtime's real bubblewrap sandbox and the stand-ins for `mcode` (minimax_support.py; nothing
here ran against MiniMax Code itself):

- the function round trip through the adapter's `functions` MCP server, with the sandbox's network
  enabled (the host's loopback is the sandbox's) and disabled (its own loopback: the server is
  reached through the relay's loopback bridge, `switchboard sandbox-relay`);
- a file the agent's native shell tool writes is in the workspace (the Environment files API and
  the Runtime's workspace directory), and the command is a `command_execution` Item;
- `web_search: disabled` removes the native fetch from the tools the agent offers the model on a
  workspace, an omitted control keeps it (claude-agent-acp's WebFetch: codex has no fetch tool).
"""

import os
import shutil

import pytest

from conftest import WEATHER_FUNCTION
from minimax_support import MinimaxHarness, install_standin, sandbox_paths

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None and os.environ.get("CI") != "true",
                                reason="SKIPPED: bwrap is missing (scripts/setup.sh installs it)")

AGENTS = ["codex-acp", "claude-agent-acp"]
SHELL = {"rules": [
    {"name": "run", "when": {"tool_output_present": False}, "reply": {"shell": "pwd > made.txt"}},
    {"name": "answer", "reply": {"text": "Wrote made.txt."}},
]}


def hosted(network=None):
    environment = {"type": "openai_hosted"}
    if network is not None:
        environment["network"] = network
    return environment


def start(start_engine, tmp_path, monkeypatch, agent, scenario=None):
    """An engine whose Runtime finds the stand-in as `mcode` and shows it in its sandboxes."""
    monkeypatch.setenv("SWITCHBOARD_MINIMAX_CODE_BIN", str(install_standin(tmp_path, agent)))
    monkeypatch.setenv("SWITCHBOARD_MINIMAX_CODE_SANDBOX_PATHS", sandbox_paths(agent))
    engine = start_engine(scenario)
    return engine, MinimaxHarness(engine.mock.base_url, agent)


def create(engine, harness, environment, tools, **kwargs):
    return engine.client.beta.agents.sessions.create(
        environment=environment,
        agent={"model": harness.model, "tools": tools},
        input=kwargs.pop("input", "What is the weather in Paris?"),
        extra_body=harness.extra_body,
        **kwargs,
    )


def unescaped(text):
    """codex hands the model the MCP content as JSON text (quotes escaped); Claude its text."""
    return text.replace('\\"', '"')


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("network", ["enabled", "disabled"])
def test_function_round_trip_in_the_sandbox(start_engine, tmp_path, monkeypatch, agent, network):
    engine, harness = start(start_engine, tmp_path, monkeypatch, agent)
    stream = create(engine, harness, hosted({"access": network}), [WEATHER_FUNCTION], stream=True,
                    tool_handlers={"get_weather": lambda args: {"temp": 21}})
    result = stream.get_final_result()
    assert result.turn.status == "completed", result.turn
    # The mock model's final answer quotes the result it received: the round trip went through
    # the agent inside the sandbox and back to the model.
    assert result.output_text.startswith("FINAL: ") and '"temp":21' in unescaped(result.output_text), result.output_text
    items = list(engine.client.beta.agents.sessions.items.list(result.session_id, order="asc"))
    kinds = [i.type for i in items if i.type in ("function_call", "function_call_output")]
    assert kinds == ["function_call", "function_call_output"], [i.type for i in items]


@pytest.mark.parametrize("agent", AGENTS)
def test_a_native_tool_writes_the_workspace(start_engine, tmp_path, monkeypatch, agent):
    engine, harness = start(start_engine, tmp_path, monkeypatch, agent, SHELL)
    stream = create(engine, harness, hosted(), [], input="Write made.txt.", stream=True)
    result = stream.get_final_result()
    assert result.turn.status == "completed", result.turn
    assert result.output_text == "Wrote made.txt."
    # The agent's own command is observed: a command_execution Item, completed.
    items = list(engine.client.beta.agents.sessions.items.list(result.session_id, order="asc"))
    commands = [i for i in items if i.type == "command_execution"]
    assert len(commands) == 1 and commands[0].status == "completed", items
    assert "made.txt" in commands[0].command, commands[0]
    env_id = engine.client.beta.agents.sessions.retrieve(result.session_id).environment.id
    listed = {f.path: f.size_bytes for f in engine.client.beta.agents.environments.files.list(env_id).data}
    assert listed.get("/workspace/made.txt") == len("/workspace\n"), listed
    workspace = engine.server.data_dir / "environments" / env_id / "workspace"
    assert (workspace / "made.txt").read_text() == "/workspace\n"


def offered(engine, harness):
    """The names of the tools each of the agent's Turn requests offered (Claude Code also sends
    side requests with no tools, which are left out)."""
    calls = [{t.get("name") for t in call["body"].get("tools") or []} for call in harness.model_calls(engine)]
    return [names for names in calls if "mcp__functions__get_weather" in names]


@pytest.mark.parametrize("control", ["disabled", "omitted"])
def test_web_search_disabled_removes_web_fetch_on_a_workspace(start_engine, tmp_path, monkeypatch, control):
    engine, harness = start(start_engine, tmp_path, monkeypatch, "claude-agent-acp")
    tools = [WEATHER_FUNCTION] + ([{"type": "web_search", "mode": "disabled"}] if control == "disabled" else [])
    stream = create(engine, harness, hosted(), tools, stream=True, tool_handlers={"get_weather": lambda args: "sunny"})
    assert stream.get_final_result().turn.status == "completed"
    requests = offered(engine, harness)
    assert requests, engine.journal()
    for names in requests:
        # Never native search (features.webSearch=false); the native tools otherwise run.
        assert "WebSearch" not in names and "Bash" in names, names
        assert ("WebFetch" in names) == (control == "omitted"), names
