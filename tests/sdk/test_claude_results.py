"""Function results on the real `claude` binary: every row of the result conflict table
(execution-tools.md "Results", core-contracts.md §3.2) for claude_code Sessions, and the result
content Claude's declaration cannot carry (images in a failed result, image URLs that are not
inline PNG or JPEG), which is refused without consuming the pending call.

Each test gets its own Engine. The mock's built-in default calls the first offered function
once per Turn (`mcp__functions__get_weather` with `{"city": ""}`), then answers
`FINAL: <tool output>`, so a Session created with get_weather waits on one required action."""

import os
import signal

import openai
import pytest
from openai import OpenAI

from claude_support import block_text, create, create_pending, function_result_blocks, tool_result_blocks
from conftest import API_KEY, error_of
from session_support import (
    CANCEL,
    cmdline,
    descendants,
    history_snapshot,
    items_raw,
    message,
    post_events,
    session_raw,
    tool_result,
    turns_raw,
    wait_idle,
    wait_required_actions,
    wait_turn_ended,
)

DIFFERENT_RESULT = "The tool call already has a different result."
CANNOT_ACCEPT = "The Turn cannot accept this input in its current state."
OTHER_TURN = "The tool call belongs to a different Turn."
FAILED_RESULT_IMAGES = "The harness does not support images in a failed function result."
INLINE_RESULT_IMAGES = "The harness supports only inline PNG or JPEG function result images."

# A 1×1 PNG.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
PNG_URL = f"data:image/png;base64,{PNG}"


def conflict(message):
    return {"message": message, "type": "conflict_error", "param": None, "code": "conflict_error"}


def invalid(message):
    return {"message": message, "type": "invalid_request_error", "param": None, "code": "invalid_request_error"}


NOT_FOUND = {"message": "Resource not found.", "type": "not_found_error", "param": None, "code": "not_found_error"}


def outputs(items):
    return [i for i in items if i["type"] == "function_call_output"]


def sent_texts(engine):
    """The text of every distinct tool_result the model received, in order."""
    return [block_text(b) for b in tool_result_blocks(engine).values()]


def assert_rejected(status, headers, body, expected_status, expected_error):
    assert status == expected_status, body
    assert error_of(body) == expected_error
    if expected_status == 409:
        assert headers["x-should-retry"] == "false"


def test_identical_retry_is_accepted_before_and_after_turn_end(engine):
    sid, action = create_pending(engine)
    assert action["name"] == "get_weather" and action["arguments"] == '{"city":""}'
    result = tool_result(action, output="sunny")
    assert post_events(engine.raw, sid, [result])[0] == 202
    # An immediate retry (the result may not be applied yet) is accepted and adds nothing.
    status, _, body = post_events(engine.raw, sid, [result])
    assert (status, body) == (202, None)
    wait_idle(engine.raw, sid)
    before = history_snapshot(engine.raw, sid)
    assert len(outputs(before["items"])) == 1
    assert before["items"][-1]["content"][0]["text"] == "FINAL: sunny"

    # After the Turn ended: the SDK call succeeds (202) and nothing new appears.
    assert engine.client.beta.agents.sessions.events.create(sid, events=[result]) is None
    status, _, body = post_events(engine.raw, sid, [result])
    assert (status, body) == (202, None)
    after = history_snapshot(engine.raw, sid)
    assert after == before
    assert len(turns_raw(engine.raw, sid)) == 1
    # claude answered the call once, with exactly that text.
    assert sent_texts(engine) == ["sunny"]


def test_different_result_conflicts_while_running_and_after_end(engine):
    sid, action = create_pending(engine)
    assert post_events(engine.raw, sid, [tool_result(action, output="sunny")])[0] == 202
    status, headers, body = post_events(engine.raw, sid, [tool_result(action, output="rainy")])
    assert_rejected(status, headers, body, 409, conflict(DIFFERENT_RESULT))
    wait_idle(engine.raw, sid)
    before = history_snapshot(engine.raw, sid)

    for changed in [
        tool_result(action, output="rainy"),
        tool_result(action, output="sunny", success=False),
        tool_result(action, output="sunny", error="late error"),
        tool_result(action, output=[{"type": "input_text", "text": "sunny"}]),
    ]:
        status, headers, body = post_events(engine.raw, sid, [changed])
        assert_rejected(status, headers, body, 409, conflict(DIFFERENT_RESULT))
    # The SDK surfaces it as a ConflictError and, told not to retry, sends it once.
    retrying = OpenAI(base_url=engine.server.base_url, api_key=API_KEY, max_retries=2)
    with pytest.raises(openai.ConflictError) as e:
        retrying.beta.agents.sessions.events.create(sid, events=[tool_result(action, output="rainy")])
    assert e.value.body == conflict(DIFFERENT_RESULT)
    assert e.value.response.headers["x-should-retry"] == "false"

    assert history_snapshot(engine.raw, sid) == before
    [output] = outputs(before["items"])
    assert output["output"] == "sunny"
    assert sent_texts(engine) == ["sunny"]


def test_first_result_after_cancel_conflicts(engine):
    sid, action = create_pending(engine)
    status, _, body = post_events(engine.raw, sid, [{"type": CANCEL}])
    assert (status, body) == (202, None)
    # Cancel requested: the call stops being a required action at once.
    assert session_raw(engine.raw, sid)["required_actions"] == []
    status, headers, body = post_events(engine.raw, sid, [tool_result(action)])
    assert_rejected(status, headers, body, 409, conflict(CANNOT_ACCEPT))

    assert wait_turn_ended(engine.raw, sid, action["turn_id"])["status"] == "cancelled"
    session = wait_idle(engine.raw, sid)
    assert session["required_actions"] == []
    before = history_snapshot(engine.raw, sid)
    status, headers, body = post_events(engine.raw, sid, [tool_result(action)])
    assert_rejected(status, headers, body, 409, conflict(CANNOT_ACCEPT))
    with pytest.raises(openai.ConflictError) as e:
        engine.client.beta.agents.sessions.events.create(sid, events=[tool_result(action)])
    assert e.value.body == conflict(CANNOT_ACCEPT)
    assert history_snapshot(engine.raw, sid) == before
    assert outputs(before["items"]) == []
    # No result ever reached the model for the cancelled call.
    assert action["call_id"] not in function_result_blocks(engine, [action["call_id"]])


def kill_claude_processes(server):
    """Kills the claude processes this test's own server started (its descendants only)."""
    pids = [p for p in descendants(server.proc.pid) if "claude" in cmdline(p)]
    assert pids, "the server runs no claude process"
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return pids


def test_first_result_for_abandoned_call_conflicts(engine):
    sid, action = create_pending(engine)
    # The native harness goes away with the call unanswered: it is abandoned, and the Turn
    # ends without it.
    kill_claude_processes(engine.server)
    turn = wait_turn_ended(engine.raw, sid, action["turn_id"])
    assert turn["status"] == "failed"
    assert turn["error"] == {"code": "internal_error", "message": "The execution could not complete."}
    assert session_raw(engine.raw, sid)["required_actions"] == []
    before = history_snapshot(engine.raw, sid)

    status, headers, body = post_events(engine.raw, sid, [tool_result(action)])
    assert_rejected(status, headers, body, 409, conflict(CANNOT_ACCEPT))
    assert history_snapshot(engine.raw, sid) == before
    assert outputs(before["items"]) == []

    # The next message opens a new Turn on a new claude process, which calls again.
    assert post_events(engine.raw, sid, [message("Try again")])[0] == 202
    retried = wait_required_actions(engine.raw, sid)
    [again] = retried["required_actions"]
    assert again["turn_id"] != action["turn_id"] and again["call_id"] != action["call_id"]
    status, headers, body = post_events(engine.raw, sid, [tool_result(action)])
    assert_rejected(status, headers, body, 409, conflict(CANNOT_ACCEPT))
    assert post_events(engine.raw, sid, [tool_result(again, output="sunny")])[0] == 202
    assert wait_idle(engine.raw, sid)["status"] == "idle"
    assert [o["output"] for o in outputs(items_raw(engine.raw, sid))] == ["sunny"]


def test_unknown_call_is_400_naming_the_call_and_keeps_the_action(engine):
    sid, action = create_pending(engine)
    before = history_snapshot(engine.raw, sid)
    unknown = tool_result({"turn_id": action["turn_id"], "call_id": "toolu_does_not_exist"})
    status, headers, body = post_events(engine.raw, sid, [unknown])
    assert_rejected(status, headers, body, 400, invalid("Unknown pending tool call: toolu_does_not_exist"))
    with pytest.raises(openai.BadRequestError) as e:
        engine.client.beta.agents.sessions.events.create(sid, events=[unknown])
    assert e.value.body == invalid("Unknown pending tool call: toolu_does_not_exist")
    assert history_snapshot(engine.raw, sid) == before
    assert before["status"] == "requires_action"

    assert post_events(engine.raw, sid, [tool_result(action, output="sunny")])[0] == 202
    wait_idle(engine.raw, sid)
    assert [o["output"] for o in outputs(items_raw(engine.raw, sid))] == ["sunny"]
    assert sent_texts(engine) == ["sunny"]


def test_call_of_another_turn_is_400_and_keeps_the_action(engine):
    sid, first = create_pending(engine)
    assert post_events(engine.raw, sid, [tool_result(first, output="sunny")])[0] == 202
    wait_idle(engine.raw, sid)
    assert post_events(engine.raw, sid, [message("And in Rome?")])[0] == 202
    second = wait_required_actions(engine.raw, sid)["required_actions"][0]
    assert second["turn_id"] != first["turn_id"] and second["call_id"] != first["call_id"]
    before = history_snapshot(engine.raw, sid)

    cases = [
        tool_result({"turn_id": first["turn_id"], "call_id": second["call_id"]}),
        tool_result({"turn_id": "turn_00000000000000000000000000000000", "call_id": second["call_id"]}),
        tool_result({"turn_id": "not-a-turn-id", "call_id": second["call_id"]}),
        # The earlier Turn's call (it has a result) under the current Turn's ID.
        tool_result({"turn_id": second["turn_id"], "call_id": first["call_id"]}, output="sunny"),
    ]
    for event in cases:
        status, headers, body = post_events(engine.raw, sid, [event])
        assert_rejected(status, headers, body, 400, invalid(OTHER_TURN))
    with pytest.raises(openai.BadRequestError) as e:
        engine.client.beta.agents.sessions.events.create(sid, events=[cases[0]])
    assert e.value.body == invalid(OTHER_TURN)
    assert history_snapshot(engine.raw, sid) == before
    assert before["required_actions"] == [second]

    assert post_events(engine.raw, sid, [tool_result(second, output="warm")])[0] == 202
    wait_idle(engine.raw, sid)
    assert [o["output"] for o in outputs(items_raw(engine.raw, sid))] == ["sunny", "warm"]
    assert sent_texts(engine) == ["sunny", "warm"]


def test_result_for_missing_or_deleted_session_is_404(engine):
    sid, action = create_pending(engine)
    for other in ["sess_00000000000000000000000000000000", "sess_nope"]:
        status, _, body = post_events(engine.raw, other, [tool_result(action)])
        assert status == 404 and error_of(body) == NOT_FOUND
        with pytest.raises(openai.NotFoundError):
            engine.client.beta.agents.sessions.events.create(other, events=[tool_result(action)])
    assert session_raw(engine.raw, sid)["required_actions"] == [action]

    # Another claude Session of the same caller does not know this call.
    other = create(engine, tools=(), input="Hello")
    wait_idle(engine.raw, other.id)
    status, _, body = post_events(engine.raw, other.id, [tool_result(action)])
    assert status == 400 and error_of(body) == invalid(f"Unknown pending tool call: {action['call_id']}")

    # A deleted Session is missing.
    assert post_events(engine.raw, sid, [tool_result(action, output="sunny")])[0] == 202
    wait_idle(engine.raw, sid)
    engine.client.beta.agents.sessions.delete(sid)
    status, _, body = post_events(engine.raw, sid, [tool_result(action, output="sunny")])
    assert status == 404 and error_of(body) == NOT_FOUND


# ---------------------------------------------------------------------------------------------
# Content Claude's declaration refuses: never consumes the call.


def unsupported(message):
    return {
        "message": message,
        "type": "invalid_request_error",
        "param": None,
        "code": "unsupported_or_invalid_configuration",
    }


@pytest.mark.parametrize(
    "fields,expected",
    [
        (
            {"success": False, "output": [{"type": "input_text", "text": "map"}, {"type": "input_image", "image_url": PNG_URL}], "error": "boom"},
            FAILED_RESULT_IMAGES,
        ),
        ({"success": True, "output": [{"type": "input_image", "image_url": "https://example.com/map.png"}]}, INLINE_RESULT_IMAGES),
        ({"success": True, "output": [{"type": "input_image", "image_url": "data:image/gif;base64,R0lGODlhAQABAAAAACw="}]}, INLINE_RESULT_IMAGES),
    ],
    ids=["failed-with-image", "image-url", "gif-data-url"],
)
def test_unsupported_result_content_is_refused_and_the_call_stays_pending(engine, fields, expected):
    sid, action = create_pending(engine)
    before = history_snapshot(engine.raw, sid)
    event = {"type": "agent.session.input.tool_result", "turn_id": action["turn_id"], "call_id": action["call_id"], **fields}
    status, _, body = post_events(engine.raw, sid, [event])
    assert status == 400, body
    assert error_of(body) == unsupported(expected)
    with pytest.raises(openai.BadRequestError) as e:
        engine.client.beta.agents.sessions.events.create(sid, events=[event])
    assert e.value.body == unsupported(expected)
    # Nothing was stored: the call is still the pending required action.
    assert history_snapshot(engine.raw, sid) == before
    assert before["status"] == "requires_action" and before["required_actions"] == [action]

    # A result claude can carry still answers it: text around an inline PNG.
    parts = [
        {"type": "input_text", "text": "map follows"},
        {"type": "input_image", "image_url": PNG_URL},
        {"type": "input_text", "text": "legend: red is hot"},
    ]
    assert post_events(engine.raw, sid, [tool_result(action, output=parts)])[0] == 202
    wait_idle(engine.raw, sid)
    [output] = outputs(items_raw(engine.raw, sid))
    assert output["output"] == parts and output["error"] is None
    assert session_raw(engine.raw, sid)["status"] == "idle"
    block = function_result_blocks(engine, [action["call_id"]])[action["call_id"]]
    content = block["content"]
    assert content[0] == {"type": "text", "text": "map follows"}
    assert content[1]["type"] == "image" and content[1]["source"]["type"] == "base64"
    assert content[1]["source"]["data"] == PNG
    assert content[-1] == {"type": "text", "text": "legend: red is hot"}
