"""Retry identity of a `tool_result`: the same members with the same exact values is the same
result, whatever their order; a member's presence counts (`"error": null` is not an omitted
`error`), and numbers count by their exact spelling."""

from session_support import create_pending, post_events, wait_idle

DIFFERENT_RESULT = "The tool call already has a different result."


def test_reordered_members_are_the_same_result(engine):
    sid, action = create_pending(engine)
    first = {
        "type": "agent.session.input.tool_result",
        "turn_id": action["turn_id"],
        "call_id": action["call_id"],
        "success": True,
        "output": '{"temp": 1.000}',
    }
    assert post_events(engine.raw, sid, [first])[0] == 202
    reordered = {k: first[k] for k in ["output", "success", "call_id", "turn_id", "type"]}
    status, _, body = post_events(engine.raw, sid, [reordered])
    assert (status, body) == (202, None)
    wait_idle(engine.raw, sid)


def test_explicit_null_error_is_not_an_omitted_error(engine):
    sid, action = create_pending(engine)
    first = {
        "type": "agent.session.input.tool_result",
        "turn_id": action["turn_id"],
        "call_id": action["call_id"],
        "success": True,
        "output": "ok",
    }
    assert post_events(engine.raw, sid, [first])[0] == 202
    status, headers, body = post_events(engine.raw, sid, [dict(first, error=None)])
    assert status == 409
    assert headers["x-should-retry"] == "false"
    assert body["error"]["message"] == DIFFERENT_RESULT
    wait_idle(engine.raw, sid)
