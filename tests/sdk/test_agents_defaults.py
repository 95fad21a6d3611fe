"""Agents created through the official SDK come back with exactly the saved defaults."""

import urllib.request

from conftest import API_KEY

DEFAULT_FIELDS = {
    "object": "agent",
    "model": "gpt-x",
    "name": None,
    "instructions": None,
    "metadata": {},
    "tools": [],
    "text": {"format": {"type": "text"}, "verbosity": "medium"},
    "reasoning": {"effort": None, "summary": None},
    "service_tier": "auto",
    "multi_agent": {"enabled": False, "max_concurrent_subagents": None},
}


def test_minimal_agent_has_every_default(client, raw):
    agent = client.beta.agents.create(model="gpt-x")
    assert agent.id.startswith("agent_")
    status, _, body = raw.request("GET", f"/agents/{agent.id}")
    assert status == 200
    for k, v in DEFAULT_FIELDS.items():
        assert body[k] == v, (k, body[k])
    assert isinstance(body["created_at"], int) and body["updated_at"] >= body["created_at"]


def test_tool_defaults_are_saved(client, raw):
    agent = client.beta.agents.create(
        model="gpt-x",
        tools=[
            {"type": "function", "name": "f", "description": "d", "parameters": {"type": "object"}},
            {"type": "programmatic_tool_calling"},
            {"type": "web_search"},
        ],
    )
    _, _, body = raw.request("GET", f"/agents/{agent.id}")
    fn, ptc, ws = body["tools"]
    assert fn["defer_loading"] is False and fn["parameters"] == {"type": "object"}
    assert ptc == {"type": "programmatic_tool_calling", "enabled": True}
    assert ws == {"type": "web_search", "mode": "live", "context_size": "medium", "allowed_domains": None, "location": None}


def test_web_search_settings_resolve(client, raw):
    agent = client.beta.agents.create(
        model="gpt-x",
        tools=[{"type": "web_search", "mode": None, "context_size": None, "allowed_domains": [], "location": {}}],
    )
    _, _, body = raw.request("GET", f"/agents/{agent.id}")
    assert body["tools"][0] == {
        "type": "web_search",
        "mode": "live",
        "context_size": "medium",
        "allowed_domains": [],
        "location": {"city": None, "country": None, "region": None, "timezone": None},
    }


def test_saving_never_qualifies_execution(client):
    # Claude Code cannot run cached web search, but saving is not execution: it is stored.
    agent = client.beta.agents.create(
        model="claude-x",
        tools=[{"type": "web_search", "mode": "cached"}],
        extra_body={"x_agents_core": {"harness": "claude_code"}},
    )
    again = client.beta.agents.retrieve(agent.id)
    assert again.tools[0].mode == "cached"


def test_numbers_survive_exactly(raw):
    body = (
        '{"model":"gpt-x","tools":[{"type":"function","name":"f","description":"d",'
        '"parameters":{"type":"object","properties":{"x":{"type":"number","maximum":1.000,'
        '"minimum":-12345678901234567890123.50}}}}]}'
    )
    status, _, created = raw.request("POST", "/agents", body=body)
    assert status == 201, created
    # Read the bytes, not a parsed dict: the digits themselves are what must survive.
    req = urllib.request.Request(
        raw.base_url + f"/agents/{created['id']}",
        headers={"OpenAI-Beta": "agents=v1", "Authorization": f"Bearer {API_KEY}"},
    )
    with urllib.request.urlopen(req) as r:
        raw_text = r.read().decode()
    assert '"maximum":1.000' in raw_text
    assert '"minimum":-12345678901234567890123.50' in raw_text
