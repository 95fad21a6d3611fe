"""What the MiniMax Code declaration refuses, through the official SDK on minimax_code Sessions,
with the exact errors (execution-tools "Web search and programmatic tool calling", the MCP
rows; crates/harness/src/declarations/minimax_code.rs): web_search other than disabled,
programmatic tool calling enabled, stdio MCP servers, the label `functions` beside functions,
environment-origin HTTP MCP with allowed_tools or required. Nothing is written. What it admits
(web_search disabled, PTC false) runs on the stand-in for `mcode`; the 400 without a binary is
in test_minimax_sessions.py."""

import openai
import pytest

from conftest import WEATHER_FUNCTION
from minimax_support import MinimaxHarness, install_standin
from stream_support import tools_of_type

HOSTED = {"type": "openai_hosted"}
NONE = {"type": "none"}
HTTP = {"type": "mcp", "server_label": "tickets", "transport": {"type": "http", "server_url": "https://mcp.example.com/mcp"}}
STDIO = {
    "type": "mcp",
    "server_label": "local",
    "transport": {"type": "stdio", "command": "ticket-server", "args": [], "cwd": "/workspace", "env_vars": []},
}
ENV_HTTP = {**HTTP, "connection_origin": "environment"}

REFUSALS = {
    "web_search cached": (
        NONE,
        [{"type": "web_search", "mode": "cached"}],
        "agent.tools[0].mode",
        "The harness does not support web_search mode 'cached'.",
    ),
    "web_search live": (
        NONE,
        [WEATHER_FUNCTION, {"type": "web_search", "mode": "live"}],
        "agent.tools[1].mode",
        "The harness does not support web_search mode 'live'.",
    ),
    "programmatic tool calling": (
        NONE,
        [{"type": "programmatic_tool_calling", "enabled": True}],
        "agent.tools[0].enabled",
        "The harness does not support programmatic_tool_calling enabled=true.",
    ),
    "stdio MCP on environment none": (
        NONE,
        [STDIO],
        "agent.tools[0].transport",
        "MCP stdio servers require a managed or self-hosted execution environment.",
    ),
    "stdio MCP on a workspace": (
        HOSTED,
        [STDIO],
        "agent.tools[0].transport.cwd",
        "The configured engine cannot start MCP stdio servers in the declared cwd.",
    ),
    "the label functions beside functions": (
        HOSTED,
        [WEATHER_FUNCTION, {**ENV_HTTP, "server_label": "functions"}],
        "agent.tools",
        "The harness does not support this MCP server label.",
    ),
    "environment-origin MCP with allowed_tools": (
        HOSTED,
        [{**ENV_HTTP, "allowed_tools": ["lookup_ticket"]}],
        "agent.tools",
        "The harness requires allowed_tools null.",
    ),
    "environment-origin MCP required": (
        HOSTED,
        [{**ENV_HTTP, "required": True}],
        "agent.tools",
        "The harness does not support required MCP servers.",
    ),
}


@pytest.fixture
def minimax(start_engine, tmp_path, monkeypatch):
    monkeypatch.setenv("SWITCHBOARD_MINIMAX_CODE_BIN", str(install_standin(tmp_path)))
    engine = start_engine()
    return engine, MinimaxHarness(engine.mock.base_url)


@pytest.mark.parametrize("case", list(REFUSALS), ids=list(REFUSALS))
def test_the_declaration_refuses_with_the_exact_error(minimax, case):
    engine, harness = minimax
    environment, tools, param, message = REFUSALS[case]
    with pytest.raises(openai.BadRequestError) as refused:
        engine.client.beta.agents.sessions.create(
            environment=environment,
            agent={"model": harness.model, "tools": tools},
            input="What is the weather in Paris?",
            extra_body=harness.extra_body,
        )
    assert refused.value.status_code == 400
    assert refused.value.body == {
        "message": message,
        "type": "invalid_request_error",
        "param": param,
        "code": "unsupported_or_invalid_configuration",
    }
    assert engine.client.beta.agents.sessions.list().data == []
    assert engine.journal() == []


def test_web_search_disabled_and_ptc_false_run(minimax):
    engine, harness = minimax
    tools = [
        {"type": "web_search", "mode": "disabled"},
        {"type": "programmatic_tool_calling", "enabled": False},
        WEATHER_FUNCTION,
    ]
    result = harness.create(
        engine, stream=True, agent={"model": harness.model, "tools": tools}, tool_handlers={"get_weather": lambda a: "sunny"}
    ).get_final_result()
    assert result.turn.status == "completed" and result.output_text.startswith("FINAL: "), result.output_text
    # The agent offered the model no web search (features.webSearch=false reached codex).
    requests = [e for e in engine.journal() if e["path"] == "/v1/responses"]
    assert requests and all(tools_of_type(r["body"].get("tools") or [], "web_search") == [] for r in requests)
