"""Create, retrieve, update, list (cursor pages) and delete Agents with the official SDK."""

import openai
import pytest


def test_update_replaces_only_supplied_fields(client):
    agent = client.beta.agents.create(model="gpt-x", name="a", instructions="be brief", metadata={"team": "x"})
    updated = client.beta.agents.update(agent.id, name=None, metadata={"team": "y"})
    assert updated.name is None
    assert updated.instructions == "be brief"
    assert updated.metadata == {"team": "y"}
    assert updated.model == "gpt-x"
    tools_cleared = client.beta.agents.update(
        agent.id, tools=None
    )
    assert tools_cleared.tools == []
    assert client.beta.agents.retrieve(agent.id).metadata == {"team": "y"}


def test_list_pages_with_cursor_both_orders(client):
    ids = [client.beta.agents.create(model="gpt-x", name=f"a{i}").id for i in range(5)]
    page = client.beta.agents.list(limit=2)
    assert [a.id for a in page.data] == ids[::-1][:2]
    assert page.has_more is True
    # The SDK follows `after=<last id>` until has_more is false.
    assert [a.id for a in client.beta.agents.list(limit=2)] == ids[::-1]
    assert [a.id for a in client.beta.agents.list(limit=3, order="asc")] == ids
    asc = client.beta.agents.list(limit=2, order="asc", after=ids[1])
    assert [a.id for a in asc.data] == ids[2:4]


def test_delete_then_everything_is_404(client):
    agent = client.beta.agents.create(model="gpt-x")
    deleted = client.beta.agents.delete(agent.id)
    assert deleted.id == agent.id and deleted.deleted is True
    with pytest.raises(openai.NotFoundError) as e:
        client.beta.agents.retrieve(agent.id)
    assert e.value.body == {"message": "Resource not found.", "type": "not_found_error", "param": None, "code": "not_found_error"}
    with pytest.raises(openai.NotFoundError):
        client.beta.agents.delete(agent.id)
    with pytest.raises(openai.NotFoundError):
        client.beta.agents.update(agent.id, name="x")


def test_malformed_ids_look_missing(client):
    for bad in ["agent_nope", "sess_00000000000000000000000000000000", "x" * 300]:
        with pytest.raises(openai.NotFoundError) as e:
            client.beta.agents.retrieve(bad)
        assert e.value.body["message"] == "Resource not found."


def test_model_provider_api_key_is_write_only(client, raw, server):
    agent = client.beta.agents.create(
        model="gpt-x",
        extra_body={
            "x_agents_core": {
                "harness": "codex",
                "model_provider": {"protocol": "responses", "base_url": "http://127.0.0.1:9/v1", "api_key": "sk-provider-SECRET"},
            }
        },
    )
    _, _, body = raw.request("GET", f"/agents/{agent.id}")
    assert body["x_agents_core"]["harness"] == "codex"
    assert body["x_agents_core"]["model_provider"]["base_url"] == "http://127.0.0.1:9/v1"
    assert "api_key" not in body["x_agents_core"]["model_provider"]
    assert "sk-provider-SECRET" not in str(body)
    # Never stored in plain text either (the database file and its WAL).
    files = list(server.data_dir.glob("switchboard.sqlite*"))
    assert files
    for f in files:
        assert b"sk-provider-SECRET" not in f.read_bytes()
