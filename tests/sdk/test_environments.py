"""Environments through the official SDK (agents-api-wire §2, §3, §5, §12): the Environment
resource, Session create on both workspace placements, and the exact 400s for what this
service does not build. What a Runtime does in a workspace is tested with the Runtime."""

import openai
import pytest

from conftest import error_of
from session_support import sessions_raw

MODEL = {"model": "gpt-test"}


def unsupported(param, message):
    return {"message": message, "type": "invalid_request_error", "param": param, "code": "unsupported_or_invalid_configuration"}


def create_raw(raw, environment, **extra):
    return raw.request("POST", "/agents/sessions", body={"environment": environment, "agent": MODEL, **extra})


def environments_raw(raw):
    status, _, body = raw.request("GET", "/agents/environments?limit=100")
    assert status == 200
    return body["data"]


# ---------------------------------------------------------------------------------------------
# Self-hosted.


def test_self_hosted_create_makes_an_environment_and_shows_its_enrollment_once(engine, tmp_path):
    workspace = str(tmp_path / "work")
    session = engine.client.beta.agents.sessions.create(
        environment={"type": "self_hosted", "workspace_directory": workspace, "capability_directories": ["/caps"]},
        agent=MODEL,
    )
    env = session.environment
    assert env.type == "self_hosted"
    assert env.id.startswith("env_")
    assert env.workspace_directory == workspace
    assert env.capability_directories == ["/caps"]
    core = engine.server.base_url.rsplit("/v1", 1)[0]
    assert env.remote_url == core
    enrollment = session.model_extra["x_agents_core"]["enrollment"]
    assert enrollment["token"].startswith("sbenr_")
    assert enrollment["command"] == f"switchboard runtime --core {core} --enroll {enrollment['token']}"
    assert session.status == "idle"
    assert session.required_actions == []

    # Reads never carry the token again.
    again = engine.client.beta.agents.sessions.retrieve(session.id)
    assert "enrollment" not in again.model_extra["x_agents_core"]
    assert again.environment == env

    info = engine.client.beta.agents.environments.retrieve(env.id)
    assert (info.id, info.object, info.type, info.status) == (env.id, "agent.environment", "self_hosted", "pending")
    assert (info.files, info.skills, info.plugins) == ([], [], [])
    listed = engine.client.beta.agents.environments.list(type="self_hosted")
    assert [e.id for e in listed.data] == [env.id]
    assert engine.client.beta.agents.environments.list(type="openai_hosted").data == []


def test_self_hosted_initial_input_waits_for_the_environment_connection(engine, tmp_path):
    session = engine.client.beta.agents.sessions.create(
        environment={"type": "self_hosted", "workspace_directory": str(tmp_path)}, agent=MODEL, input="Hello"
    )
    assert session.status == "requires_action"
    assert [a.model_dump() for a in session.required_actions] == [
        {"environment_id": session.environment.id, "type": "environment_connection"}
    ]
    # The deployment's own Runtime never takes it: it stays waiting.
    assert engine.client.beta.agents.sessions.retrieve(session.id).status == "requires_action"


def test_other_placements_may_not_stream_without_input(engine):
    status, _, body = create_raw(engine.raw, {"type": "openai_hosted"}, stream=True)
    assert status == 400
    assert error_of(body)["message"] == "streaming session creation requires initial input"


# ---------------------------------------------------------------------------------------------
# Managed (openai_hosted): what is not built is refused naming the field, nothing written.

NOT_BUILT = [
    ({"network": {"access": "restricted"}}, "environment.network.access",
     "This service does not support environment.network.access restricted yet; use enabled or disabled."),
    ({"network": {"access": "enabled", "allowed_domains": ["example.com"]}}, "environment.network.allowed_domains",
     "This service does not support environment.network.allowed_domains yet."),
    ({"packages": {"python": ["requests"]}}, "environment.packages.python",
     "This service does not support environment.packages.python yet."),
    ({"skills": [{"type": "skill_reference", "skill_id": "skill_1"}]}, "environment.skills",
     "This service does not support environment.skills yet."),
    ({"plugins": [{"type": "inline", "name": "p", "description": "d", "source": {}}]}, "environment.plugins",
     "This service does not support environment.plugins yet."),
    ({"desktop": {"enabled": True}}, "environment.desktop", "This service does not support environment.desktop yet."),
    ({"environment_template_id": "envtpl_1"}, "environment.environment_template_id",
     "This service does not support environment.environment_template_id yet."),
    ({"container_size": "small"}, "environment.container_size",
     "This service does not size managed workspaces; omit environment.container_size."),
    ({"files": [{"type": "file_id", "file_id": "file_1", "path": "/workspace/a"}]}, "environment.files[0].type",
     "This service does not support file_id files (environment.files[0].type); send the contents inline with type 'inline'."),
]


@pytest.mark.parametrize("fields,param,message", NOT_BUILT, ids=[p for _, p, _ in NOT_BUILT])
def test_managed_fields_not_built_are_refused_naming_the_field(engine, fields, param, message):
    with pytest.raises(openai.BadRequestError) as e:
        engine.client.beta.agents.sessions.create(environment={"type": "openai_hosted", **fields}, agent=MODEL, input="Hi")
    assert e.value.body == unsupported(param, message)
    assert sessions_raw(engine.raw) == []
    assert environments_raw(engine.raw) == []


@pytest.mark.parametrize("path", ["/etc/passwd", "workspace/a", "/workspace/../etc/passwd", "/workspaces/a"])
def test_a_file_outside_the_workspace_mount_is_refused(engine, path):
    status, _, body = create_raw(
        engine.raw, {"type": "openai_hosted", "files": [{"type": "inline", "path": path, "data": "aGk="}]}, input="Hi"
    )
    assert status == 400
    assert error_of(body) == {
        "message": "Invalid 'environment.files[0].path': expected an absolute path inside the environment, under /workspace.",
        "type": "invalid_request_error",
        "param": "environment.files[0].path",
        "code": "invalid_request_error",
    }
    assert sessions_raw(engine.raw) == []


def test_a_missing_environment_id_is_404(engine):
    with pytest.raises(openai.NotFoundError):
        engine.client.beta.agents.sessions.create(
            environment={"type": "openai_hosted", "environment_id": "env_00000000000000000000000000000000"},
            agent=MODEL,
            input="Hi",
        )
    assert sessions_raw(engine.raw) == []


def test_an_existing_environment_keeps_its_configuration(engine):
    env = engine.client.beta.agents.environments.create(environment={"type": "openai_hosted"})
    status, _, body = create_raw(
        engine.raw, {"type": "openai_hosted", "environment_id": env.id, "setup_commands": [{"command": "true"}]}, input="Hi"
    )
    assert status == 400
    assert error_of(body) == {
        "message": "An existing Environment keeps its own configuration; omit 'environment.setup_commands' when environment.environment_id is set.",
        "type": "invalid_request_error",
        "param": "environment.setup_commands",
        "code": "invalid_request_error",
    }


# ---------------------------------------------------------------------------------------------
# The Environment resource.


def test_environments_create_retrieve_and_list(engine):
    env = engine.client.beta.agents.environments.create(
        environment={
            "type": "openai_hosted",
            "files": [{"type": "inline", "path": "/workspace/notes.txt", "data": "aGVsbG8="}],
            "env": {"TOKEN": "secret-value"},
            "setup_commands": [{"command": "echo hi"}],
        }
    )
    assert env.object == "agent.environment"
    assert env.type == "openai_hosted"
    assert env.status == "pending"
    assert [(f.type, f.path, f.size_bytes) for f in env.files] == [("inline", "/workspace/notes.txt", 5)]
    assert (env.skills, env.plugins) == ([], [])
    status, _, body = engine.raw.request("GET", f"/agents/environments/{env.id}")
    assert status == 200
    assert "secret-value" not in str(body) and "echo hi" not in str(body)
    assert engine.client.beta.agents.environments.retrieve(env.id).id == env.id
    assert [e.id for e in engine.client.beta.agents.environments.list().data] == [env.id]


def test_environments_create_honours_the_idempotency_key(engine):
    key = {"Idempotency-Key": "env-key-1"}
    first = engine.client.beta.agents.environments.create(environment={"type": "openai_hosted"}, extra_headers=key)
    again = engine.client.beta.agents.environments.create(environment={"type": "openai_hosted"}, extra_headers=key)
    assert again.id == first.id
    with pytest.raises(openai.ConflictError) as e:
        engine.client.beta.agents.environments.create(
            environment={"type": "openai_hosted", "network": {"access": "disabled"}}, extra_headers=key
        )
    assert e.value.body["code"] == "idempotency_conflict"
    assert len(environments_raw(engine.raw)) == 1


def test_environments_create_refuses_unknown_and_unbuilt_members(engine):
    status, _, body = engine.raw.request("POST", "/agents/environments", body={"environment": {"type": "openai_hosted"}, "gpu": 1})
    assert status == 400
    assert error_of(body)["param"] == "gpu"
    status, _, body = engine.raw.request(
        "POST", "/agents/environments", body={"environment": {"type": "openai_hosted", "packages": {"system": ["git"]}}}
    )
    assert status == 400
    assert error_of(body) == unsupported("environment.packages.system", "This service does not support environment.packages.system yet.")
    assert environments_raw(engine.raw) == []


def test_missing_environment_is_404(engine):
    for path in ["/agents/environments/env_00000000000000000000000000000000", "/agents/environments/nope/files"]:
        status, _, body = engine.raw.request("GET", path)
        assert status == 404
        assert error_of(body)["code"] == "not_found_error"


def test_file_id_files_are_not_supported(engine):
    env = engine.client.beta.agents.environments.create(environment={"type": "openai_hosted"})
    with pytest.raises(openai.BadRequestError) as e:
        engine.client.beta.agents.environments.files.create(env.id, type="file_id", file_id="file_1", path="/workspace/a")
    assert e.value.body == {
        "message": "This service does not support file_id files; send the contents inline with type 'inline'.",
        "type": "invalid_request_error",
        "param": "type",
        "code": "invalid_request_error",
    }
    with pytest.raises(openai.BadRequestError) as e:
        engine.client.beta.agents.environments.files.create(env.id, type="inline", data="aGk=", path="/tmp/a")
    assert e.value.body["param"] == "path"


def test_deleting_a_session_deletes_the_environment_it_created(engine, tmp_path):
    session = engine.client.beta.agents.sessions.create(
        environment={"type": "self_hosted", "workspace_directory": str(tmp_path)}, agent=MODEL
    )
    env_id = session.environment.id
    engine.client.beta.agents.sessions.delete(session.id)
    with pytest.raises(openai.NotFoundError):
        engine.client.beta.agents.environments.retrieve(env_id)
    # A self-hosted workspace is the user's directory: never removed.
    assert tmp_path.exists()
