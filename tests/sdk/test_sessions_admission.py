"""Session creation admission (core-contracts §2.3, execution-tools "Admission"): every
rejection is a 400/404 with the exact error body, and nothing is written (no Session is
listed afterwards)."""

import openai
import pytest

from conftest import WEATHER_FUNCTION, error_of
from session_support import items_raw, sessions_raw, wait_idle

NO_PROVIDER = (
    "This Session was created without a model provider and cannot run. Create a new Session with "
    "x_agents_core.model_provider or an Agent that has one saved."
)


def unsupported(param, message):
    return {"message": message, "type": "invalid_request_error", "param": param, "code": "unsupported_or_invalid_configuration"}


def create_raw(raw, body):
    return raw.request("POST", "/agents/sessions", body=body)


def assert_nothing_written(raw):
    assert sessions_raw(raw) == []


# ---------------------------------------------------------------------------------------------
# Initial input.


@pytest.mark.parametrize(
    "extra",
    [{}, {"stream": True}, {"metadata": {"team": "a"}}],
    ids=["plain", "stream", "with-metadata"],
)
def test_conversation_only_session_requires_initial_input(engine, extra):
    status, _, body = create_raw(engine.raw, {"environment": {"type": "none"}, "agent": {"model": "gpt-test"}, **extra})
    assert status == 400
    assert error_of(body) == {
        "message": "conversation-only sessions currently require initial input",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_request_error",
    }
    assert_nothing_written(engine.raw)


def test_sdk_sees_missing_input_as_bad_request(engine):
    with pytest.raises(openai.BadRequestError) as e:
        engine.client.beta.agents.sessions.create(environment={"type": "none"}, agent={"model": "gpt-test"})
    assert e.value.body["message"] == "conversation-only sessions currently require initial input"
    assert_nothing_written(engine.raw)


def test_protocol_errors_come_before_the_input_rule(engine):
    status, _, body = create_raw(engine.raw, {"environment": {"type": "none"}, "agent": {"model": "gpt-test"}, "bogus": 1})
    assert status == 400
    assert error_of(body) == {
        "message": "Unknown parameter: 'bogus'.",
        "type": "invalid_request_error",
        "param": "bogus",
        "code": "unknown_parameter",
    }
    assert_nothing_written(engine.raw)


# ---------------------------------------------------------------------------------------------
# Model provider.


def test_model_provider_required_without_a_deployment_provider(client, raw):
    # `server` runs without --model-provider-url, and neither the request nor an Agent names one.
    with pytest.raises(openai.BadRequestError) as e:
        client.beta.agents.sessions.create(
            environment={"type": "none"}, agent={"model": "gpt-test", "tools": [WEATHER_FUNCTION]}, input="Hello"
        )
    assert e.value.body == {
        "message": NO_PROVIDER,
        "type": "invalid_request_error",
        "param": "x_agents_core.model_provider",
        "code": "model_provider_required",
    }
    # The same through a saved Agent without a provider.
    agent = client.beta.agents.create(model="gpt-test")
    status, _, body = create_raw(raw, {"environment": {"type": "none"}, "agent_id": agent.id, "input": "Hello"})
    assert status == 400
    assert error_of(body)["code"] == "model_provider_required"
    assert error_of(body)["param"] == "x_agents_core.model_provider"
    assert_nothing_written(raw)
    assert client.beta.agents.sessions.list().data == []


# ---------------------------------------------------------------------------------------------
# The codex declaration.


@pytest.mark.parametrize(
    "agent,expected",
    [
        ({"service_tier": "priority"},
         unsupported("agent.service_tier", "The harness does not support service_tier 'priority'.")),
        ({"reasoning": {"effort": "max"}},
         unsupported("agent.reasoning.effort", "The harness does not support reasoning effort 'max'.")),
        ({"tools": [{"type": "tool_search"}, {**WEATHER_FUNCTION, "defer_loading": True}]},
         unsupported("agent.tools", "The harness does not support tool search.")),
    ],
    ids=["service-tier", "reasoning-effort", "tool-search"],
)
def test_codex_declaration_rejects_unsupported_options(engine, agent, expected):
    status, _, body = create_raw(
        engine.raw, {"environment": {"type": "none"}, "agent": {"model": "gpt-test", **agent}, "input": "Hello"}
    )
    assert status == 400
    assert error_of(body) == expected
    assert_nothing_written(engine.raw)


def test_saved_agent_is_checked_at_session_creation_not_on_save(engine):
    client = engine.client
    # Saving never qualifies execution.
    agent = client.beta.agents.create(
        model="gpt-test", tools=[{"type": "tool_search"}, {**WEATHER_FUNCTION, "defer_loading": True}]
    )
    with pytest.raises(openai.BadRequestError) as e:
        client.beta.agents.sessions.create(environment={"type": "none"}, agent_id=agent.id, input="Hello")
    assert e.value.body == unsupported("agent.tools", "The harness does not support tool search.")
    assert_nothing_written(engine.raw)

    # A Session that replaces the saved tools is admitted.
    session = client.beta.agents.sessions.create(
        environment={"type": "none"}, agent_id=agent.id, agent={"tools": []}, input="Hello"
    )
    assert session.agent.id == agent.id and session.agent.tools == []
    wait_idle(engine.raw, session.id)
    assert [s["id"] for s in sessions_raw(engine.raw)] == [session.id]


def test_web_search_cached_is_admitted_for_codex(engine):
    session = engine.client.beta.agents.sessions.create(
        environment={"type": "none"},
        agent={"model": "gpt-test", "tools": [{"type": "web_search", "mode": "cached"}]},
        input="Hello",
    )
    assert session.agent.tools[0].mode == "cached"
    wait_idle(engine.raw, session.id)
    assert items_raw(engine.raw, session.id)[-1]["content"][0]["text"] == "ECHO: Hello"


# ---------------------------------------------------------------------------------------------
# The Runtime capability gate: a combination the declaration admits still needs a connected
# Runtime that advertises every capability it requires. The local Runtime does not advertise MCP
# (no adapter runs MCP servers yet), so an MCP HTTP server is admitted by the declaration and
# then refused here, before anything is written.


def test_capability_no_runtime_advertises_is_400_and_writes_nothing(engine, harness):
    mcp = {"type": "mcp", "server_label": "docs", "transport": {"type": "http", "server_url": "https://mcp.example.com/mcp"}}
    status, _, body = harness.create_raw(
        engine, {"environment": {"type": "none"}, "agent": {"model": harness.model, "tools": [mcp]}, "input": "Hello"}
    )
    assert status == 400
    assert error_of(body) == unsupported(
        None, f"No connected Runtime advertises the mcp_http_tools capability for the {harness.name} harness."
    )
    assert_nothing_written(engine.raw)
    # The same Runtime runs the Session without the server.
    session = harness.create(engine, tools=(), input="Hello")
    wait_idle(engine.raw, session.id)
    assert [s["id"] for s in sessions_raw(engine.raw)] == [session.id]


# ---------------------------------------------------------------------------------------------
# Placement and references.


def test_openai_hosted_environment_is_rejected(engine):
    status, _, body = create_raw(
        engine.raw, {"environment": {"type": "openai_hosted"}, "agent": {"model": "gpt-test"}, "input": "Hello"}
    )
    assert status == 400
    assert error_of(body) == unsupported(
        "environment", "This service does not provide openai_hosted environments; use environment none or self_hosted."
    )
    assert_nothing_written(engine.raw)


@pytest.mark.parametrize(
    "agent_id", ["agent_00000000000000000000000000000000", "agent_nope", "sess_00000000000000000000000000000000"]
)
def test_missing_agent_is_404(engine, agent_id):
    with pytest.raises(openai.NotFoundError) as e:
        engine.client.beta.agents.sessions.create(environment={"type": "none"}, agent_id=agent_id, input="Hello")
    assert e.value.body == {"message": "Resource not found.", "type": "not_found_error", "param": None, "code": "not_found_error"}
    assert_nothing_written(engine.raw)


def test_deleted_agent_is_404(engine):
    agent = engine.client.beta.agents.create(model="gpt-test")
    engine.client.beta.agents.delete(agent.id)
    status, _, body = create_raw(engine.raw, {"environment": {"type": "none"}, "agent_id": agent.id, "input": "Hello"})
    assert status == 404
    assert error_of(body)["code"] == "not_found_error"
    assert_nothing_written(engine.raw)
