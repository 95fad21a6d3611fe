"""Sessions attach Vaults (core-contracts §5.4): a missing Vault is a 404, a null entry a 400,
and each HTTP MCP server's credential selection fails with the spec's exact messages (the 409
for two matches), before execution admission and with nothing written."""

import pytest

from conftest import error_of

URL = "https://mcp.example.com/mcp"
OTHER = "https://other.example.com/mcp"


def mcp(credential_id=None, url=URL):
    tool = {"type": "mcp", "server_label": "docs", "transport": {"type": "http", "server_url": url}}
    if credential_id is not None:
        tool["credential_id"] = credential_id
    return tool


def create(raw, tools, vault_ids=None):
    body = {"environment": {"type": "none"}, "agent": {"model": "gpt-test", "tools": tools}, "input": "hi"}
    if vault_ids is not None:
        body["vault_ids"] = vault_ids
    return raw.request("POST", "/agents/sessions", body=body)


def bad_request(message):
    return {"message": message, "type": "invalid_request_error", "param": None, "code": "invalid_request_error"}


def assert_no_sessions(raw):
    status, _, body = raw.request("GET", "/agents/sessions")
    assert status == 200 and body["data"] == [], body


@pytest.fixture
def vaults(client):
    """Two Vaults: `a` with a credential for URL, `b` with one for OTHER."""
    a = client.beta.agents.vaults.create(name="a")
    b = client.beta.agents.vaults.create(name="b")
    ca = client.beta.agents.vaults.credentials.create(
        a.id, name="a", auth={"type": "static_bearer", "mcp_server_url": URL, "token": "tok-a"}
    )
    cb = client.beta.agents.vaults.credentials.create(
        b.id, name="b", auth={"type": "static_bearer", "mcp_server_url": OTHER, "token": "tok-b"}
    )
    return {"a": a.id, "b": b.id, "ca": ca.id, "cb": cb.id}


def test_a_missing_vault_is_404(raw, vaults):
    status, _, body = create(raw, [mcp()], [vaults["a"], "vault_0123456789abcdef0123456789abcdef"])
    assert status == 404
    assert error_of(body) == {"message": "Resource not found.", "type": "not_found_error", "param": None, "code": "not_found_error"}
    status, _, _ = create(raw, [], ["not-a-vault-id"])
    assert status == 404
    assert_no_sessions(raw)


def test_a_null_vault_entry_is_invalid(raw, vaults):
    status, _, body = create(raw, [mcp()], [vaults["a"], None])
    assert status == 400
    assert error_of(body) == {
        "message": "Invalid type for 'vault_ids[1]': expected a string, but got null instead.",
        "type": "invalid_request_error",
        "param": "vault_ids[1]",
        "code": "invalid_type",
    }
    assert_no_sessions(raw)


def test_explicit_credential_without_a_vault(raw, vaults):
    for vault_ids in (None, []):
        status, _, body = create(raw, [mcp(vaults["ca"])], vault_ids)
        assert status == 400
        assert error_of(body) == bad_request("MCP credential_id requires an attached vault")
    assert_no_sessions(raw)


def test_explicit_credential_not_in_an_attached_vault(raw, vaults):
    status, _, body = create(raw, [mcp(vaults["ca"])], [vaults["b"]])
    assert status == 400
    assert error_of(body) == bad_request(f"MCP credential_id {vaults['ca']} was not found in an attached vault")
    assert_no_sessions(raw)


def test_explicit_credential_for_another_url(raw, vaults):
    status, _, body = create(raw, [mcp(vaults["cb"])], [vaults["a"], vaults["b"]])
    assert status == 400
    assert error_of(body) == bad_request(f"MCP credential_id {vaults['cb']} does not match server_url {URL}")
    assert_no_sessions(raw)


def test_two_matching_credentials_are_a_conflict(client, raw, vaults):
    client.beta.agents.vaults.credentials.create(
        vaults["b"], name="again", auth={"type": "static_bearer", "mcp_server_url": URL, "token": "tok-c"}
    )
    status, headers, body = create(raw, [mcp()], [vaults["a"], vaults["b"]])
    assert status == 409
    assert headers["x-should-retry"] == "false"
    assert error_of(body) == {
        "message": f"multiple attached vault credentials match MCP server_url {URL}; specify credential_id",
        "type": "conflict_error",
        "param": None,
        "code": "conflict_error",
    }
    assert_no_sessions(raw)
