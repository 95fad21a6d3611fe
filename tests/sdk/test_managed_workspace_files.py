"""environments.files on a managed workspace, end to end through the local Runtime: inline files
of environments.create and files.create land in the workspace the Runtime keeps under its data
dir and are listed with their sizes; a symlink planted in the workspace (as the model could plant
one) to the data dir is neither written through nor listed."""

import os
import shutil

import openai
import pytest

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None and os.environ.get("CI") != "true",
                                reason="SKIPPED: bwrap is missing (scripts/setup.sh installs it)")


def test_files_reach_the_managed_workspace_and_symlinks_are_not_followed(engine):
    envs = engine.client.beta.agents.environments
    env = envs.create(
        environment={
            "type": "openai_hosted",
            "files": [{"type": "inline", "path": "/workspace/notes.txt", "data": "aGVsbG8="}],
        }
    )
    envs.files.create(env.id, type="inline", data="d29ybGQh", path="/workspace/src/main.txt")
    listed = envs.files.list(env.id)
    paths = [(f.path, f.size_bytes) for f in listed.data]
    assert ("/workspace/src/main.txt", 6) in paths, paths

    workspace = engine.server.data_dir / "environments" / env.id / "workspace"
    assert (workspace / "src" / "main.txt").read_text() == "world!"
    os.symlink(engine.server.data_dir, workspace / "data_link")
    with pytest.raises(openai.BadRequestError) as refused:
        envs.files.create(env.id, type="inline", data="eA==", path="/workspace/data_link/planted.txt")
    assert refused.value.body == {
        "message": "The path `/workspace/data_link/planted.txt` leaves the workspace or crosses a symlink.",
        "type": "invalid_request_error",
        "param": "path",
        "code": "invalid_request_error",
    }
    assert not (engine.server.data_dir / "planted.txt").exists()
    listed = [f.path for f in envs.files.list(env.id).data]
    assert not any(p.startswith("/workspace/data_link") for p in listed), listed
