"""Session creation admission (core-contracts §2.3, execution-tools "Admission"): every
rejection is a 400/404 with the exact error body, and nothing is written (no Session is
listed afterwards)."""

import openai
import pytest

from conftest import WEATHER_FUNCTION, error_of
from session_support import (
    items_raw,
    post_events,
    session_raw,
    sessions_raw,
    tool_result,
    wait_idle,
    wait_required_actions,
)

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
# Runtime that advertises every capability it requires. MiniMax Code's declaration admits
# multi_agent, but the ACP adapter reports no Subagent observations (codex and claude do:
# test_subagents*.py), so its native Subagents are admitted by the declaration and then refused
# here, before anything is written.


def test_capability_no_runtime_advertises_is_400_and_writes_nothing(start_engine, tmp_path, monkeypatch):
    from minimax_support import MinimaxHarness, install_standin

    monkeypatch.setenv("SWITCHBOARD_MINIMAX_CODE_BIN", str(install_standin(tmp_path)))
    engine = start_engine()
    harness = MinimaxHarness(engine.mock.base_url)
    status, _, body = harness.create_raw(
        engine,
        {"environment": {"type": "none"}, "agent": {"model": harness.model, "multi_agent": {"enabled": True}}, "input": "Hello"},
    )
    assert status == 400
    assert error_of(body) == unsupported(
        None, f"No connected Runtime advertises the subagent_observations capability for the {harness.name} harness."
    )
    assert_nothing_written(engine.raw)
    # The same Runtime runs the Session without Subagents.
    session = harness.create(engine, tools=(), input="Hello")
    wait_idle(engine.raw, session.id)
    assert [s["id"] for s in sessions_raw(engine.raw)] == [session.id]


# ---------------------------------------------------------------------------------------------
# Placement and references.


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


# ---------------------------------------------------------------------------------------------
# Limits the adapters enforce at preparation are declaration data, checked here (issue 9).

CODEX_NAME = "The harness requires function names of 1 to 128 ASCII letters, digits, underscores or hyphens."
LOSSLESS = "This runtime requires an object schema with lossless JSON numbers."
# A 30-digit integer: codex 0.171.0's thread/start cannot read integers that need 128 bits.
WIDE_SCHEMA = (
    '{"type":"object","properties":{"n":{"type":"integer","maximum":123456789012345678901234567890}}}'
)


def function(name, parameters=None):
    return {**WEATHER_FUNCTION, "name": name, **({"parameters": parameters} if parameters else {})}


def session_body(agent, harness=None, **extra):
    body = {"environment": {"type": "none"}, "agent": {"model": "gpt-test", **agent}, "input": "Hello", **extra}
    if harness:
        body["x_agents_core"] = {"harness": harness}
        body["agent"]["model"] = "claude-test"
    return body


def wide_body(harness):
    """The raw text of a Session create whose function schema holds a 30-digit integer (the SDK
    would send it through Python ints too, but raw text keeps the digits beyond doubt)."""
    model = "claude-test" if harness == "claude_code" else "gpt-test"
    return (
        '{"environment":{"type":"none"},"input":"What is the weather?","x_agents_core":{"harness":"%s"},'
        '"agent":{"model":"%s","tools":[{"type":"function","name":"get_weather","description":"d","parameters":%s}]}}'
        % (harness, model, WIDE_SCHEMA)
    )


def test_saved_agent_with_a_bad_codex_function_name_saves_and_its_sessions_get_the_400(engine):
    client = engine.client
    # Saving never qualifies execution: the name is kept exactly.
    agent = client.beta.agents.create(model="gpt-test", tools=[WEATHER_FUNCTION, function("city.lookup")])
    assert client.beta.agents.retrieve(agent.id).tools[1].name == "city.lookup"
    status, _, body = create_raw(engine.raw, {"environment": {"type": "none"}, "agent_id": agent.id, "input": "Hello"})
    assert status == 400
    assert error_of(body) == unsupported("agent.tools[1].name", CODEX_NAME)
    assert_nothing_written(engine.raw)

    # Claude Code runs the same saved Agent: its native client normalizes the name.
    session = client.beta.agents.sessions.create(
        environment={"type": "none"},
        agent_id=agent.id,
        agent={"model": "claude-test"},
        input="Hello",
        extra_body={"x_agents_core": {"harness": "claude_code"}},
    )
    assert [s["id"] for s in sessions_raw(engine.raw)] == [session.id]


@pytest.mark.parametrize(
    "name", ["get weather", "get\u0000weather", "a" * 129, "météo"], ids=["space", "nul", "129-bytes", "non-ascii"]
)
def test_codex_refuses_function_names_outside_its_pattern(engine, name):
    status, _, body = create_raw(engine.raw, session_body({"tools": [WEATHER_FUNCTION, function(name)]}))
    assert status == 400
    assert error_of(body) == unsupported("agent.tools[1].name", CODEX_NAME)
    assert_nothing_written(engine.raw)


def test_codex_runs_a_128_byte_function_name(engine):
    session = engine.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent={"model": "gpt-test", "tools": [function("a" * 128)]}, input="Hello"
    )
    got = wait_required_actions(engine.raw, session.id)
    assert got["required_actions"][0]["name"] == "a" * 128


@pytest.mark.parametrize(
    "names,native",
    [
        (["get.weather", "get_weather"], "mcp__functions__get_weather"),
        (["get_weather", "get\u0000weather"], "mcp__functions__get_weather"),
        # JavaScript replaces each UTF-16 unit: U+1F600 is two of them.
        (["a\U0001F600", "a__"], "mcp__functions__a__"),
    ],
    ids=["dot", "nul", "astral"],
)
def test_claude_refuses_function_names_that_collide_once_normalized(engine, names, native):
    status, _, body = create_raw(
        engine.raw, session_body({"tools": [function(n) for n in names]}, harness="claude_code")
    )
    assert status == 400
    assert error_of(body) == unsupported(
        "agent.tools[1].name", f"The harness names this tool {native}, as it names another tool of the Session."
    )
    assert_nothing_written(engine.raw)


@pytest.mark.parametrize(
    "name,native",
    [("get\u0000weather", "mcp__functions__get_weather"), ("a\U0001F600", "mcp__functions__a__")],
    ids=["nul", "astral"],
)
def test_claude_runs_a_function_whose_name_the_native_client_normalizes(engine, name, native):
    # The contracts forbid NUL only in stdio MCP parts (process arguments) and the provider key
    # (a header); a function name is JSON text end to end, so it runs under its own name.
    session = engine.client.beta.agents.sessions.create(
        environment={"type": "none"},
        agent={"model": "claude-test", "tools": [function(name)]},
        input="What is the weather?",
        extra_body={"x_agents_core": {"harness": "claude_code"}},
    )
    got = wait_required_actions(engine.raw, session.id)
    action = got["required_actions"][0]
    assert action["name"] == name
    first = [e for e in engine.journal() if e["path"] == "/v1/messages" and e["method"] == "POST"][0]
    assert native in [t.get("name") for t in first["body"].get("tools") or []]
    status, _, _ = post_events(engine.raw, session.id, [tool_result(action, output="sunny")])
    assert status == 202
    wait_idle(engine.raw, session.id)
    assert items_raw(engine.raw, session.id)[-1]["type"] == "message"


def test_a_metadata_key_with_nul_is_kept_and_filters(engine):
    # As for names: no reference contract forbids NUL in a metadata key, so it round-trips.
    key = "team\u0000a"
    session = engine.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent={"model": "gpt-test"}, input="Hello", metadata={key: "x"}
    )
    assert session.metadata == {key: "x"}
    assert session_raw(engine.raw, session.id)["metadata"] == {key: "x"}
    assert [s["id"] for s in sessions_raw(engine.raw, "&metadata%5Bteam%00a%5D=x")] == [session.id]
    assert sessions_raw(engine.raw, "&metadata%5Bteam%5D=x") == []
    wait_idle(engine.raw, session.id)
    agent = engine.client.beta.agents.create(model="gpt-test", metadata={key: "x"})
    assert engine.client.beta.agents.retrieve(agent.id).metadata == {key: "x"}


def test_codex_refuses_a_parameters_integer_that_needs_128_bits(engine):
    status, _, body = engine.raw.request("POST", "/agents/sessions", body=wide_body("codex"))
    assert status == 400
    assert error_of(body) == unsupported("agent.tools[0].parameters", LOSSLESS)
    assert_nothing_written(engine.raw)

    # Saved, it keeps its digits; a Session from it gets the same 400.
    status, _, agent = engine.raw.request(
        "POST", "/agents", body='{"model":"gpt-test","tools":[{"type":"function","name":"f","description":"d","parameters":%s}]}' % WIDE_SCHEMA
    )
    assert status == 201, agent
    status, _, body = create_raw(engine.raw, {"environment": {"type": "none"}, "agent_id": agent["id"], "input": "Hello"})
    assert status == 400
    assert error_of(body) == unsupported("agent.tools[0].parameters", LOSSLESS)
    assert_nothing_written(engine.raw)


def test_claude_runs_a_parameters_integer_that_needs_128_bits(engine):
    status, _, session = engine.raw.request("POST", "/agents/sessions", body=wide_body("claude_code"))
    assert status == 201, session
    got = wait_required_actions(engine.raw, session["id"])
    assert got["required_actions"][0]["name"] == "get_weather"


@pytest.mark.parametrize(
    "agent,harness_config,expected",
    [
        ({"model": "  "}, None, unsupported("agent.model", "model must be a nonempty model identifier")),
        (
            {},
            {"thinking": {"type": "adaptive"}},
            unsupported(
                "x_agents_core.harness_config.thinking",
                "The harness does not support harness_config member 'thinking'.",
            ),
        ),
        (
            {},
            {"effort": "minimal"},
            unsupported(
                "x_agents_core.harness_config.effort",
                "The harness supports harness_config.effort values low, medium, high, xhigh, max.",
            ),
        ),
    ],
    ids=["blank-model", "thinking", "effort"],
)
def test_claude_adapter_refusals_are_admission_refusals(engine, agent, harness_config, expected):
    body = session_body({}, harness="claude_code")
    body["agent"].update(agent)
    if harness_config is not None:
        body["x_agents_core"]["harness_config"] = harness_config
    status, _, got = create_raw(engine.raw, body)
    assert status == 400
    assert error_of(got) == expected
    assert_nothing_written(engine.raw)


def test_claude_refuses_a_model_with_nul(engine):
    # Claude Code takes the model as a process argument (`--model`), which ends at NUL.
    status, _, body = create_raw(engine.raw, session_body({}, harness="claude_code") | {"agent": {"model": "claude\u0000test"}})
    assert status == 400, body
    assert error_of(body) == unsupported("agent.model", "The harness requires a model identifier without NUL characters.")
    assert_nothing_written(engine.raw)


def test_codex_refuses_an_output_schema_integer_that_needs_128_bits(engine):
    status, _, body = engine.raw.request(
        "POST",
        "/agents/sessions",
        body='{"environment":{"type":"none"},"input":"Hello","agent":{"model":"gpt-test",'
        '"text":{"format":{"type":"json_schema","schema":%s}}}}' % WIDE_SCHEMA,
    )
    assert status == 400
    assert error_of(body) == unsupported("agent.text.format", LOSSLESS)
    assert_nothing_written(engine.raw)


def test_claude_refuses_a_message_image_its_adapter_cannot_send(engine):
    body = session_body({}, harness="claude_code")
    body["input"] = [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "hi"}, {"type": "input_image", "image_url": "data:image/bmp;base64,Qk0="}],
        }
    ]
    status, _, got = create_raw(engine.raw, body)
    assert status == 400
    assert error_of(got) == unsupported(
        None, "The harness takes message images as http(s) URLs or inline base64 data URLs of type png, jpeg, gif, webp."
    )
    assert_nothing_written(engine.raw)
