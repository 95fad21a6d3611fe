"""Vaults and credentials through the official SDK (agents-api-wire §2, §12): CRUD and shapes,
list filters, every rejection with its exact error and nothing written, and write-only secrets
that appear in no response and not in plain text in the store."""

import openai
import pytest

from conftest import Server, error_of

URL = "https://mcp.example.com/mcp"
TOKEN = "tok-STATIC-secret.123"
ACCESS = "oauth-ACCESS-secret"
REFRESH = "oauth-REFRESH-secret"
CLIENT_SECRET = "oauth-CLIENT-secret"
SECRETS = [TOKEN, ACCESS, REFRESH, CLIENT_SECRET]

VAULT_KEYS = {"id", "object", "name", "metadata", "created_at"}
CREDENTIAL_KEYS = {"id", "object", "vault_id", "name", "metadata", "created_at", "updated_at", "auth"}


def invalid(param, message, code="invalid_value"):
    return {"message": message, "type": "invalid_request_error", "param": param, "code": code}


def static(url=URL, token=TOKEN):
    return {"type": "static_bearer", "mcp_server_url": url, "token": token}


def no_secrets(*bodies):
    text = repr(bodies)
    for s in SECRETS:
        assert s not in text


def credentials_raw(raw, vault_id):
    status, _, body = raw.request("GET", f"/vaults/{vault_id}/credentials?order=asc")
    assert status == 200, body
    return body["data"]


def test_vault_crud_and_shapes(client, raw):
    v = client.beta.agents.vaults.create(name="  team vault  ", metadata={"team": "a"})
    status, _, body = raw.request("GET", f"/vaults/{v.id}")
    assert status == 200
    assert set(body) == VAULT_KEYS
    assert body == {"id": v.id, "object": "vault", "name": "team vault", "metadata": {"team": "a"}, "created_at": v.created_at}
    assert v.id.startswith("vault_")

    # Update replaces only what it names; null clears the name.
    u = client.beta.agents.vaults.update(v.id, metadata={"team": "b"})
    assert (u.name, u.metadata) == ("team vault", {"team": "b"})
    u = client.beta.agents.vaults.update(v.id, name=None)
    assert (u.name, u.metadata) == (None, {"team": "b"})

    # Create without a body: no name, empty metadata, 201.
    status, _, bare = raw.request("POST", "/vaults", body={})
    assert status == 201
    assert (bare["name"], bare["metadata"]) == (None, {})

    d = client.beta.agents.vaults.delete(v.id)
    assert (d.id, d.object, d.deleted) == (v.id, "vault.deleted", True)
    with pytest.raises(openai.NotFoundError):
        client.beta.agents.vaults.retrieve(v.id)
    for bad in ["vault_nope", "agent_0123456789abcdef0123456789abcdef"]:
        status, _, body = raw.request("GET", f"/vaults/{bad}")
        assert status == 404
        assert error_of(body)["message"] == "Resource not found."


def test_vault_list_filters_status_and_metadata_and_pages(client, raw):
    ids = [client.beta.agents.vaults.create(name=f"v{i}", metadata={"team": "a" if i % 2 else "b"}).id for i in range(3)]
    page = client.beta.agents.vaults.list(order="asc")
    assert [v.id for v in page.data] == ids
    assert [v.id for v in client.beta.agents.vaults.list(order="asc", status="active")] == ids
    assert [v.id for v in client.beta.agents.vaults.list(order="asc", status=["active", "archived"])] == ids
    assert list(client.beta.agents.vaults.list(status="archived")) == []
    assert [v.id for v in client.beta.agents.vaults.list(order="asc", metadata={"team": "a"})] == [ids[1]]
    # The SDK follows the cursor.
    assert [v.id for v in client.beta.agents.vaults.list(order="asc", limit=1)] == ids
    status, _, body = raw.request("GET", "/vaults?status=gone")
    assert status == 400
    assert error_of(body) == invalid("status", "Invalid value: 'gone'. Supported values are: 'active' and 'archived'.")


def test_static_bearer_credential_crud_keeps_the_token_write_only(client, raw, server):
    v = client.beta.agents.vaults.create(name="v")
    c = client.beta.agents.vaults.credentials.create(v.id, name="github", auth=static(), metadata={"k": "1"})
    status, _, body = raw.request("GET", f"/vaults/{v.id}/credentials/{c.id}")
    assert status == 200
    assert set(body) == CREDENTIAL_KEYS
    assert body["auth"] == {"type": "static_bearer", "mcp_server_url": URL}
    assert (body["object"], body["vault_id"], body["name"], body["metadata"]) == ("vault.credential", v.id, "github", {"k": "1"})
    assert c.id.startswith("cred_")

    # Rotation answers the same shape, still without the secret.
    r = client.beta.agents.vaults.credentials.update(c.id, vault_id=v.id, auth={"type": "static_bearer", "token": "tok-ROTATED"})
    assert r.auth.type == "static_bearer" and r.updated_at >= c.updated_at
    page = client.beta.agents.vaults.credentials.list(v.id)
    assert [x.id for x in page.data] == [c.id]
    assert "tok-ROTATED" not in repr(r.model_dump()) + repr(page.model_dump())
    no_secrets(body, r.model_dump(), page.model_dump(), c.model_dump())
    for f in server.data_dir.glob("switchboard.sqlite*"):
        data = f.read_bytes()
        assert b"tok-ROTATED" not in data and TOKEN.encode() not in data

    # A credential is found only under its own Vault.
    other = client.beta.agents.vaults.create(name="o")
    with pytest.raises(openai.NotFoundError):
        client.beta.agents.vaults.credentials.retrieve(c.id, vault_id=other.id)

    d = client.beta.agents.vaults.credentials.delete(c.id, vault_id=v.id)
    assert (d.id, d.object, d.deleted) == (c.id, "vault.credential.deleted", True)
    with pytest.raises(openai.NotFoundError):
        client.beta.agents.vaults.credentials.retrieve(c.id, vault_id=v.id)


def test_deleting_a_vault_deletes_its_credentials(client, raw):
    v = client.beta.agents.vaults.create(name="v")
    c = client.beta.agents.vaults.credentials.create(v.id, name="a", auth=static())
    client.beta.agents.vaults.delete(v.id)
    status, _, _ = raw.request("GET", f"/vaults/{v.id}/credentials/{c.id}")
    assert status == 404
    status, _, _ = raw.request("GET", f"/vaults/{v.id}/credentials")
    assert status == 404


def test_mcp_oauth_credential_shape_and_rotation(client, raw):
    v = client.beta.agents.vaults.create(name="v")
    c = client.beta.agents.vaults.credentials.create(
        v.id,
        name="oauth",
        auth={
            "type": "mcp_oauth",
            "mcp_server_url": URL,
            "access_token": ACCESS,
            "expires_at": "2030-01-01T00:00:00Z",
            "refresh": {
                "client_id": "client-1",
                "refresh_token": REFRESH,
                "token_endpoint": "https://auth.example.com/token",
                "token_endpoint_auth": {"type": "client_secret_post", "client_secret": CLIENT_SECRET},
                "scope": "read",
            },
        },
    )
    _, _, body = raw.request("GET", f"/vaults/{v.id}/credentials/{c.id}")
    assert body["auth"] == {
        "type": "mcp_oauth",
        "mcp_server_url": URL,
        "expires_at": "2030-01-01T00:00:00Z",
        "refresh": {
            "client_id": "client-1",
            "token_endpoint": "https://auth.example.com/token",
            "token_endpoint_auth": {"type": "client_secret_post"},
            "resource": None,
            "scope": "read",
        },
    }
    # A new access token without expires_at clears the expiry; scope null stops sending one.
    r = client.beta.agents.vaults.credentials.update(
        c.id, vault_id=v.id, auth={"type": "mcp_oauth", "access_token": "oauth-NEW", "refresh": {"scope": None}}
    )
    assert r.auth.expires_at is None and r.auth.refresh.scope is None
    assert r.auth.refresh.client_id == "client-1"
    no_secrets(body, c.model_dump(), r.model_dump())
    assert "oauth-NEW" not in repr(r.model_dump())


CREATE_ERRORS = [
    (
        {"name": "x", "auth": static(token="has space")},
        invalid(
            "auth.token",
            "The static_bearer token must be an RFC 6750 b64token: ASCII letters, digits, '-', '.', '_', '~', '+' or '/', optionally followed by '=' padding.",
        ),
    ),
    (
        {"name": "x", "auth": static(url="http://mcp.example.com/mcp")},
        invalid("auth.mcp_server_url", "Vault credential mcp_server_url must be an absolute HTTPS URL without credentials or fragment.", "invalid_request_error"),
    ),
    (
        {"name": "x", "auth": static(url="http://127.0.0.1:9/mcp")},
        invalid("auth.mcp_server_url", "Vault credential mcp_server_url must be an absolute HTTPS URL without credentials or fragment.", "invalid_request_error"),
    ),
    (
        {"name": "x", "auth": {"type": "environment_variable", "secret_name": "K", "secret_value": "v", "networking": {"type": "unrestricted"}}},
        invalid(
            "auth.type",
            "Vault credentials of type environment_variable are used only by openai_hosted environments, which this service does not provide; use static_bearer or mcp_oauth.",
            "invalid_request_error",
        ),
    ),
    ({"auth": static()}, invalid("name", "Missing required parameter: 'name'.", "missing_required_parameter")),
    ({"name": "   ", "auth": static()}, invalid("name", "Invalid 'name': a name must contain 1 to 256 UTF-8 bytes after trimming.")),
    ({"name": "x", "auth": {"type": "basic"}}, invalid("auth.type", "Invalid value: 'basic'. Supported values are: 'mcp_oauth', 'static_bearer', and 'environment_variable'.")),
    ({"name": "x", "auth": static(), "extra": 1}, invalid("extra", "Unknown parameter: 'extra'.", "unknown_parameter")),
    (
        {"name": "x", "auth": {"type": "mcp_oauth", "mcp_server_url": URL, "access_token": ACCESS, "expires_at": "tomorrow"}},
        invalid("auth.expires_at", "Invalid 'auth.expires_at': expected an RFC 3339 timestamp such as 2026-01-31T12:00:00Z."),
    ),
]


@pytest.mark.parametrize("body,error", CREATE_ERRORS, ids=[e[1]["param"] + ":" + e[1]["message"][:24] for e in CREATE_ERRORS])
def test_credential_create_rejections_are_exact_and_write_nothing(client, raw, body, error):
    v = client.beta.agents.vaults.create(name="v")
    status, _, got = raw.request("POST", f"/vaults/{v.id}/credentials", body=body)
    assert status == 400, got
    assert error_of(got) == error
    assert credentials_raw(raw, v.id) == []
    no_secrets(got)
    assert "has space" not in repr(got)


def test_rotation_rejections_are_exact_and_change_nothing(client, raw):
    v = client.beta.agents.vaults.create(name="v")
    c = client.beta.agents.vaults.credentials.create(v.id, name="a", auth=static(), metadata={"k": "1"})
    _, _, before = raw.request("GET", f"/vaults/{v.id}/credentials/{c.id}")
    cases = [
        (
            {"auth": {"type": "mcp_oauth", "access_token": "abc"}, "metadata": {"k": "2"}},
            invalid("auth.type", "A credential's type cannot change: auth.type must be static_bearer."),
        ),
        ({"auth": {"type": "static_bearer"}, "metadata": {"k": "2"}}, invalid("auth.token", "Missing required parameter: 'auth.token'.", "missing_required_parameter")),
        ({"name": "renamed"}, invalid("name", "Unknown parameter: 'name'.", "unknown_parameter")),
    ]
    for body, error in cases:
        status, _, got = raw.request("POST", f"/vaults/{v.id}/credentials/{c.id}", body=body)
        assert status == 400, got
        assert error_of(got) == error
    _, _, after = raw.request("GET", f"/vaults/{v.id}/credentials/{c.id}")
    assert after == before


def test_missing_vault_or_credential_is_404_and_writes_nothing(client, raw):
    missing = "vault_0123456789abcdef0123456789abcdef"
    status, _, body = raw.request("POST", f"/vaults/{missing}/credentials", body={"name": "a", "auth": static()})
    assert status == 404
    assert error_of(body)["code"] == "not_found_error"
    with pytest.raises(openai.NotFoundError):
        client.beta.agents.vaults.update(missing, name="x")
    with pytest.raises(openai.NotFoundError):
        client.beta.agents.vaults.delete(missing)
    v = client.beta.agents.vaults.create(name="v")
    with pytest.raises(openai.NotFoundError):
        client.beta.agents.vaults.credentials.delete("cred_0123456789abcdef0123456789abcdef", vault_id=v.id)
    assert [x.id for x in client.beta.agents.vaults.list()] == [v.id]


def test_loopback_http_servers_need_the_deployment_flag(tmp_path, monkeypatch):
    monkeypatch.setenv("SWITCHBOARD_ALLOW_LOOPBACK_CREDENTIALS", "1")
    s = Server(tmp_path)
    try:
        client = openai.OpenAI(base_url=s.base_url, api_key="sk-sb-test-suite-key", max_retries=0)
        v = client.beta.agents.vaults.create(name="v")
        c = client.beta.agents.vaults.credentials.create(v.id, name="local", auth=static(url="http://127.0.0.1:9/mcp"))
        assert c.auth.mcp_server_url == "http://127.0.0.1:9/mcp"
        # Still HTTPS everywhere else.
        with pytest.raises(openai.BadRequestError):
            client.beta.agents.vaults.credentials.create(v.id, name="lan", auth=static(url="http://10.0.0.1/mcp"))
    finally:
        s.stop()


def test_secrets_reach_no_log_even_at_trace_level(tmp_path, monkeypatch):
    """Leak scan: every credential route, a rejected create and a Session that selects the
    credential, with the server logging at trace level; no secret appears in its output."""
    log = tmp_path / "serve.log"
    monkeypatch.setenv("SWITCHBOARD_LOG", "trace")
    import subprocess

    real_popen = subprocess.Popen

    def popen_logging(*args, **kwargs):
        kwargs["stderr"] = open(log, "w")
        return real_popen(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", popen_logging)
    s = Server(tmp_path)
    monkeypatch.setattr(subprocess, "Popen", real_popen)
    try:
        client = openai.OpenAI(base_url=s.base_url, api_key="sk-sb-test-suite-key", max_retries=0)
        v = client.beta.agents.vaults.create(name="v")
        c = client.beta.agents.vaults.credentials.create(v.id, name="a", auth=static())
        client.beta.agents.vaults.credentials.update(c.id, vault_id=v.id, auth={"type": "static_bearer", "token": ACCESS})
        client.beta.agents.vaults.credentials.create(
            v.id,
            name="o",
            auth={
                "type": "mcp_oauth",
                "mcp_server_url": "https://other.example.com/mcp",
                "access_token": ACCESS,
                "refresh": {
                    "client_id": "c",
                    "refresh_token": REFRESH,
                    "token_endpoint": "https://auth.example.com/token",
                    "token_endpoint_auth": {"type": "client_secret_basic", "client_secret": CLIENT_SECRET},
                },
            },
        )
        with pytest.raises(openai.BadRequestError):
            client.beta.agents.vaults.credentials.create(v.id, name="bad", auth=static(url="http://x.example.com/mcp", token=TOKEN))
        list(client.beta.agents.vaults.credentials.list(v.id))
        # Selection succeeds (then the Session is refused for a missing capability or provider).
        with pytest.raises(openai.APIStatusError):
            client.beta.agents.sessions.create(
                environment={"type": "none"},
                agent={"model": "m", "tools": [{"type": "mcp", "server_label": "d", "transport": {"type": "http", "server_url": URL}}]},
                input="hi",
                vault_ids=[v.id],
            )
    finally:
        s.stop()
    text = log.read_text()
    assert text, "the server logged nothing at trace level"
    for secret in SECRETS:
        assert secret not in text
