"""Projects (issue 16) through the official SDK: `switchboard projects create` and `keys create
--project` on the Core host make a second Project's key; each key sees only its own Project's
resources, another Project's IDs are the same 404 as missing ones, and archiving a Project stops
its keys as revoking does."""

import subprocess

import openai
import pytest
from openai import OpenAI

from conftest import API_KEY, switchboard_bin


def cli(server, *args):
    done = subprocess.run([switchboard_bin(), *args, "--data-dir", str(server.data_dir)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_two_projects_see_only_their_own_resources(server):
    project_id, name = cli(server, "projects", "create", "--name", "team-b").split("\t")
    assert project_id.startswith("proj_") and name.strip() == "team-b"
    key_id, secret = cli(server, "keys", "create", "--project", project_id).split()
    listed = cli(server, "keys", "list")
    assert any(key_id in line and project_id in line for line in listed.splitlines())

    a = OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0)
    b = OpenAI(base_url=server.base_url, api_key=secret, max_retries=0)
    agent = a.beta.agents.create(model="gpt-x", name="a-only")
    vault = a.beta.agents.vaults.create(name="a-vault")
    b_agent = b.beta.agents.create(model="gpt-x", name="b-only")

    assert [x.id for x in a.beta.agents.list()] == [agent.id]
    assert [x.id for x in b.beta.agents.list()] == [b_agent.id]
    assert list(b.beta.agents.vaults.list()) == []

    for call in [lambda c, i: c.beta.agents.retrieve(i), lambda c, i: c.beta.agents.delete(i)]:
        with pytest.raises(openai.NotFoundError) as foreign:
            call(b, agent.id)
        with pytest.raises(openai.NotFoundError) as absent:
            call(b, "agent_" + "0" * 32)
        assert foreign.value.body == absent.value.body
        assert foreign.value.body == {
            "message": "Resource not found.", "type": "not_found_error",
            "param": None, "code": "not_found_error",
        }
    with pytest.raises(openai.NotFoundError):
        b.beta.agents.vaults.retrieve(vault.id)
    # Nothing of Project A went.
    assert a.beta.agents.retrieve(agent.id).name == "a-only"

    assert cli(server, "projects", "archive", project_id).strip() == f"archived {project_id}"
    with pytest.raises(openai.AuthenticationError):
        b.beta.agents.list()
    assert [x.id for x in a.beta.agents.list()] == [agent.id]
    assert any(project_id in line and "archived" in line
               for line in cli(server, "projects", "list").splitlines())
