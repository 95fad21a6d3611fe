"""Event obfuscation (agents-api-wire §8): every event carries a random `obfuscation` string
unless the reader opted out with `include_obfuscation=false` (GET …/events) or
`stream_options: {include_obfuscation: false}` (the creation stream)."""

import json
import urllib.request

from conftest import API_KEY

NO_TOOLS_AGENT = {"model": "gpt-test"}


def stream_frames(base_url, body):
    """POSTs a streaming Session create and returns every data payload until the stream ends."""
    req = urllib.request.Request(
        base_url + "/agents/sessions",
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Authorization": f"Bearer {API_KEY}",
            "OpenAI-Beta": "agents=v1",
            "Content-Type": "application/json",
        },
    )
    with urllib.request.urlopen(req) as r:
        text = r.read().decode()
    return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]


def test_creation_stream_events_carry_obfuscation_by_default(engine):
    events = stream_frames(
        engine.server.base_url,
        {"environment": {"type": "none"}, "agent": NO_TOOLS_AGENT, "input": "hi", "stream": True},
    )
    assert events, "the stream carried events"
    for event in events:
        assert isinstance(event.get("obfuscation"), str) and event["obfuscation"], event["type"]
    # Padding varies: not every frame gets the same string.
    assert len({e["obfuscation"] for e in events}) > 1


def test_creation_stream_without_obfuscation(engine):
    events = stream_frames(
        engine.server.base_url,
        {
            "environment": {"type": "none"},
            "agent": NO_TOOLS_AGENT,
            "input": "hi",
            "stream": True,
            "stream_options": {"include_obfuscation": False},
        },
    )
    assert events
    assert all("obfuscation" not in e for e in events)


def test_events_stream_rejects_a_non_boolean_opt_out(engine):
    client = engine.client
    session = client.beta.agents.sessions.create(
        environment={"type": "none"}, agent=NO_TOOLS_AGENT, input="first"
    )
    status, _, body = engine.raw.request("GET", f"/agents/sessions/{session.id}/events?include_obfuscation=maybe")
    assert status == 400
    assert body["error"]["param"] == "include_obfuscation"
