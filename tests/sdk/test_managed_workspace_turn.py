"""A managed (`openai_hosted`) workspace end to end on both harnesses, through the official SDK and
the local Runtime's bubblewrap sandbox (issue 11, "Proof"): inline files are written and setup
commands run before the first Turn, the model's native shell command writes a file in
`/workspace`, which `environments.files.list` shows and the Runtime's workspace directory holds,
and deleting the Session removes the workspace and its Environment. A setup command that fails
gives the environment failure sequence (agents-api-wire.md §11), and new input is then a 409."""

import base64
import os
import shutil

import openai
import pytest

from session_support import message
from stream_support import as_dicts

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None and os.environ.get("CI") != "true",
                                reason="SKIPPED: bwrap is missing (scripts/setup.sh installs it)")

SHELL = {"rules": [
    {"name": "run", "when": {"tool_output_present": False},
     "reply": {"shell": "cat seed.txt > made.txt && pwd >> made.txt"}},
    {"name": "answer", "reply": {"text": "Wrote made.txt."}},
]}


def b64(text):
    return base64.b64encode(text.encode()).decode()


def hosted(**fields):
    return {"type": "openai_hosted", **fields}


def test_a_native_command_writes_the_workspace_and_delete_removes_it(start_engine, harness):
    engine = start_engine(SHELL)
    sessions = engine.client.beta.agents.sessions
    stream = sessions.create(
        environment=hosted(
            files=[{"type": "inline", "path": "/workspace/seed.txt", "data": b64("seeded\n")}],
            setup_commands=[{"command": "cp seed.txt copied.txt"}],
        ),
        agent={"model": harness.model},
        input="Write made.txt.",
        stream=True,
        extra_body=harness.extra_body or None,
    )
    stream.with_result_collection()
    events = as_dicts(list(stream))
    result = stream.get_final_result()
    assert result.turn.status == "completed", result.turn
    assert result.output_text == "Wrote made.txt."
    commands = [e["item"] for e in events
                if e["type"] == "agent.session.turn.item.done" and e["item"]["type"] == "command_execution"]
    assert len(commands) == 1 and commands[0]["status"] == "completed", commands
    assert "made.txt" in commands[0]["command"]

    session = sessions.retrieve(result.turn.session_id)
    env_id = session.environment.id
    listed = {f.path: f.size_bytes for f in engine.client.beta.agents.environments.files.list(env_id).data}
    assert listed["/workspace/made.txt"] == len("seeded\n/workspace\n"), listed
    assert "/workspace/copied.txt" in listed, listed
    workspace = engine.server.data_dir / "environments" / env_id / "workspace"
    assert (workspace / "made.txt").read_text() == "seeded\n/workspace\n"

    sessions.delete(session.id)
    assert not workspace.exists()
    with pytest.raises(openai.NotFoundError):
        engine.client.beta.agents.environments.retrieve(env_id)


def test_a_failing_setup_command_gives_the_failure_sequence(start_engine, harness):
    engine = start_engine(SHELL)
    sessions = engine.client.beta.agents.sessions
    stream = sessions.create(
        environment=hosted(setup_commands=[{"command": "echo broken >&2; exit 3"}]),
        agent={"model": harness.model},
        input="Write made.txt.",
        stream=True,
        extra_body=harness.extra_body or None,
    )
    events = as_dicts(list(stream))
    types = [e["type"] for e in events]
    tail = [t for t in types if t in ("agent.session.environment.failed", "error", "agent.session.failed")]
    assert tail == ["agent.session.environment.failed", "error", "agent.session.failed"], types
    error = next(e["error"] for e in events if e["type"] == "error")
    assert (error["type"], error["code"]) == ("environment_error", "sandbox_error"), error
    session_id = events[0]["session"]["id"]
    assert sessions.retrieve(session_id).status == "failed"
    with pytest.raises(openai.ConflictError):
        sessions.events.create(session_id, events=[message("Try again.")])
