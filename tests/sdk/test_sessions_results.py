"""Function results: every row of the conflict table (execution-tools "Results", core-contracts
§3.2) on both harnesses (codex and claude_code, the `harness` fixture), and on the real codex
harness the manual flow across an application restart, content preservation and atomic batches.
Result content only Claude refuses is in test_claude_results.py.

Each test gets its own Engine (mock model + serve). The mock's built-in default calls the first
offered function once, then answers `FINAL: <tool output>`, so a Session created with
`get_weather` waits on one required action until a result is submitted."""

import openai
import pytest
from openai import OpenAI

from conftest import API_KEY, WEATHER_FUNCTION, error_of
from session_support import (
    CANCEL,
    CODEX,
    create_pending,
    history_snapshot,
    items_raw,
    kill_harness_processes,
    message,
    post_events,
    session_raw,
    tool_result,
    turn_raw,
    turns_raw,
    wait_idle,
    wait_required_actions,
    wait_turn_ended,
)

DIFFERENT_RESULT = "The tool call already has a different result."
CANNOT_ACCEPT = "The Turn cannot accept this input in its current state."
OTHER_TURN = "The tool call belongs to a different Turn."


def conflict(message):
    return {"message": message, "type": "conflict_error", "param": None, "code": "conflict_error"}


def invalid(message):
    return {"message": message, "type": "invalid_request_error", "param": None, "code": "invalid_request_error"}


NOT_FOUND = {"message": "Resource not found.", "type": "not_found_error", "param": None, "code": "not_found_error"}


def outputs(items):
    return [i for i in items if i["type"] == "function_call_output"]


def assert_rejected(status, headers, body, expected_status, expected_error):
    assert status == expected_status, body
    assert error_of(body) == expected_error
    if expected_status == 409:
        assert headers["x-should-retry"] == "false"


# ---------------------------------------------------------------------------------------------
# The manual flow: no tool handlers, a restart between the call and its result.


def test_manual_result_after_client_restart(engine):
    first = engine.client
    session = first.beta.agents.sessions.create(
        environment={"type": "none"},
        agent={"model": "gpt-test", "tools": [WEATHER_FUNCTION]},
        input="What is the weather in Paris?",
    )
    assert session.status in ("in_progress", "requires_action")

    # Follow the live stream; the read after subscribing covers an action published before it.
    with first.beta.agents.sessions.events.stream(session.id, timeout=60) as stream:
        current = first.beta.agents.sessions.retrieve(session.id)
        if not current.required_actions:
            for event in stream:
                if event.type == "agent.session.requires_action":
                    current = event.session
                    break
    assert current.status == "requires_action"
    [action] = current.required_actions
    assert action.type == "function_call" and action.name == "get_weather"
    saved = {"turn_id": action.turn_id, "call_id": action.call_id}
    # The application ran the function and saved its result, then restarted.
    first.close()

    second = OpenAI(base_url=engine.server.base_url, api_key=API_KEY, max_retries=0)
    recovered = second.beta.agents.sessions.retrieve(session.id)
    assert recovered.status == "requires_action"
    assert [a.model_dump() for a in recovered.required_actions] == [
        {
            "arguments": '{"city":""}',
            "call_id": saved["call_id"],
            "name": "get_weather",
            "turn_id": saved["turn_id"],
            "type": "function_call",
        }
    ]
    # The function_call Item is history; the required action is what says it is pending.
    listed = second.beta.agents.sessions.list().data
    assert [s.id for s in listed] == [session.id] and listed[0].required_actions == recovered.required_actions

    seen = []
    with second.beta.agents.sessions.events.stream(session.id, timeout=60) as stream:
        got = second.beta.agents.sessions.events.create(
            session.id,
            events=[
                {
                    "type": "agent.session.input.tool_result",
                    "turn_id": saved["turn_id"],
                    "call_id": saved["call_id"],
                    "success": True,
                    "output": "sunny 21C",
                }
            ],
        )
        assert got is None  # 202, empty body
        for event in stream:
            seen.append(event)
            if event.type == "agent.session.idle":
                break
    kinds = [e.type for e in seen]
    added = [e for e in seen if e.type == "agent.session.turn.item.added" and e.item.type == "function_call_output"]
    assert len(added) == 1 and added[0].output_index is None
    # A function result is an input Item: item.added only, never item.done.
    assert not [e for e in seen if e.type == "agent.session.turn.item.done" and e.item.type == "function_call_output"]
    assert kinds.index("agent.session.turn.item.added") < kinds.index("agent.session.turn.completed")
    assert kinds[-2:] == ["agent.session.turn.completed", "agent.session.idle"]
    # Admitting the result puts the Session back in progress before the result is applied.
    assert kinds[0] == "agent.session.in_progress"
    assert seen[0].session.status == "in_progress"
    completed = seen[kinds.index("agent.session.turn.completed")]
    assert completed.turn.status == "completed" and completed.turn_id == saved["turn_id"]
    assert seen[-1].session.status == "idle" and seen[-1].session.required_actions == []

    final = second.beta.agents.sessions.retrieve(session.id)
    assert final.status == "idle" and final.required_actions == [] and final.error is None
    turn = second.beta.agents.sessions.turns.retrieve(saved["turn_id"], session_id=session.id)
    assert turn.status == "completed"
    items = [i.model_dump() for i in second.beta.agents.sessions.items.list(session.id, order="asc")]
    assert [i["type"] for i in items] == ["message", "function_call", "function_call_output", "message"]
    assert items[1]["call_id"] == saved["call_id"] and items[1]["arguments"] == '{"city":""}'
    assert {k: items[2][k] for k in ("call_id", "output", "error", "turn_id", "status")} == {
        "call_id": saved["call_id"],
        "output": "sunny 21C",
        "error": None,
        "turn_id": saved["turn_id"],
        "status": "completed",
    }
    assert items[3]["phase"] == "final_answer" and items[3]["content"][0]["text"] == "FINAL: sunny 21C"
    # What reached the model is exactly the saved result.
    assert CODEX.sent_outputs(engine) == ["sunny 21C"]


# ---------------------------------------------------------------------------------------------
# The conflict table, on both harnesses (the `harness` fixture: codex, claude_code). The mock's
# default calls the first offered function once per Turn, so these Sessions wait on one call.

# Identical retries.


def test_identical_retry_is_accepted_before_and_after_turn_end(engine, harness):
    sid, action = harness.create_pending(engine)
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
    assert len(outputs(after["items"])) == 1
    assert len(turns_raw(engine.raw, sid)) == 1
    # The model got the call's result once, with exactly that text.
    assert harness.sent_outputs(engine) == ["sunny"]


# Different results.


def test_different_result_conflicts_while_running_and_after_end(engine, harness):
    sid, action = harness.create_pending(engine)
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
    assert harness.sent_outputs(engine) == ["sunny"]


# No result accepted: cancelled Turn, Turn failed by the loss of its harness process.


def test_first_result_after_cancel_conflicts(engine, harness):
    sid, action = harness.create_pending(engine)
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
    assert harness.sent_results(engine) == []


def test_result_for_a_call_of_a_turn_failed_by_harness_loss_conflicts(engine, harness):
    # Not an abandonment (no harness abandons a call on demand: core/tests/runtime_peer_calls.rs
    # plays one through a scripted Runtime). Here the native harness process is killed with the
    # call unanswered: execution is lost, the Turn fails and its call leaves the required actions.
    sid, action = harness.create_pending(engine)
    # Lost after the harness recorded the call, as a resume needs (the row is about the call).
    harness.wait_native_state(engine, sid)
    kill_harness_processes(engine.server, harness.process)
    turn = wait_turn_ended(engine.raw, sid, action["turn_id"])
    assert turn["status"] == "failed"
    assert turn["error"] == {"code": "internal_error", "message": "The execution could not complete."}
    session = session_raw(engine.raw, sid)
    assert session["required_actions"] == []
    before = history_snapshot(engine.raw, sid)

    status, headers, body = post_events(engine.raw, sid, [tool_result(action)])
    assert_rejected(status, headers, body, 409, conflict(CANNOT_ACCEPT))
    assert history_snapshot(engine.raw, sid) == before
    assert outputs(before["items"]) == []
    assert harness.sent_results(engine) == []

    # The failed Turn leaves the Session failed but usable: the next message opens a new Turn
    # on a new harness process, which calls again.
    session = session_raw(engine.raw, sid)
    assert (session["status"], session["error"]) == ("failed", "The execution could not complete.")
    assert post_events(engine.raw, sid, [message("Try again")])[0] == 202
    retried = wait_required_actions(engine.raw, sid)
    [again] = retried["required_actions"]
    assert again["turn_id"] != action["turn_id"] and again["call_id"] != action["call_id"]
    assert retried["error"] is None
    # The failed Turn's call still takes no result, while the new one does.
    status, headers, body = post_events(engine.raw, sid, [tool_result(action)])
    assert_rejected(status, headers, body, 409, conflict(CANNOT_ACCEPT))
    assert post_events(engine.raw, sid, [tool_result(again, output="sunny")])[0] == 202
    assert wait_idle(engine.raw, sid)["status"] == "idle"
    assert [o["output"] for o in outputs(items_raw(engine.raw, sid))] == ["sunny"]


# Unknown call, call of another Turn, missing Session.


def test_unknown_call_is_400_naming_the_call_and_keeps_the_action(engine, harness):
    sid, action = harness.create_pending(engine)
    before = history_snapshot(engine.raw, sid)
    unknown_id = harness.unknown_call_id
    unknown = tool_result({"turn_id": action["turn_id"], "call_id": unknown_id})
    status, headers, body = post_events(engine.raw, sid, [unknown])
    assert_rejected(status, headers, body, 400, invalid(f"Unknown pending tool call: {unknown_id}"))
    with pytest.raises(openai.BadRequestError) as e:
        engine.client.beta.agents.sessions.events.create(sid, events=[unknown])
    # The exact text the SDK's tool-result race retry matches.
    assert e.value.body == invalid(f"Unknown pending tool call: {unknown_id}")
    assert history_snapshot(engine.raw, sid) == before
    assert before["status"] == "requires_action"

    # The pending call was not consumed: its real result still completes the Turn.
    assert post_events(engine.raw, sid, [tool_result(action, output="sunny")])[0] == 202
    wait_idle(engine.raw, sid)
    assert [o["output"] for o in outputs(items_raw(engine.raw, sid))] == ["sunny"]
    assert harness.sent_outputs(engine) == ["sunny"]


def test_call_of_another_turn_is_400_and_keeps_the_action(engine, harness):
    sid, first = harness.create_pending(engine)
    assert post_events(engine.raw, sid, [tool_result(first, output="sunny")])[0] == 202
    wait_idle(engine.raw, sid)
    assert post_events(engine.raw, sid, [message("And in Rome?")])[0] == 202
    second = wait_required_actions(engine.raw, sid)["required_actions"][0]
    assert second["turn_id"] != first["turn_id"] and second["call_id"] != first["call_id"]
    before = history_snapshot(engine.raw, sid)

    cases = [
        # The pending call under the earlier Turn's ID.
        tool_result({"turn_id": first["turn_id"], "call_id": second["call_id"]}),
        # The pending call under a Turn that does not exist.
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
    assert harness.sent_outputs(engine) == ["sunny", "warm"]


def test_result_for_missing_or_deleted_session_is_404(engine, harness):
    sid, action = harness.create_pending(engine)
    for other in ["sess_00000000000000000000000000000000", "sess_nope", "agent_00000000000000000000000000000000"]:
        status, _, body = post_events(engine.raw, other, [tool_result(action)])
        assert status == 404 and error_of(body) == NOT_FOUND
        with pytest.raises(openai.NotFoundError):
            engine.client.beta.agents.sessions.events.create(other, events=[tool_result(action)])
    # The pending call is untouched by requests that named another Session.
    assert session_raw(engine.raw, sid)["required_actions"] == [action]

    # Another Session (same harness) of the same caller does not know this call.
    other = harness.create(engine, agent={"model": harness.model}, input="Hello")
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
# Content preservation.


def test_string_output_is_kept_byte_for_byte(engine):
    sid, action = create_pending(engine)
    # JSON inside the string is just text: no number normalisation, no re-encoding.
    text = '{"temp": 1.000, "big": 123456789012345678901234567890, "tiny": 1e-400, "s": "caf\u00e9 \\u00e9"}\n  '
    assert post_events(engine.raw, sid, [tool_result(action, output=text)])[0] == 202
    wait_idle(engine.raw, sid)
    items = items_raw(engine.raw, sid)
    [output] = outputs(items)
    assert output["output"] == text and output["error"] is None
    assert items[-1]["content"][0]["text"] == "FINAL: " + text
    assert CODEX.sent_outputs(engine) == [text]
    # The SDK reads the same string.
    sdk_items = list(engine.client.beta.agents.sessions.items.list(sid, order="asc"))
    assert sdk_items[2].output == text
    # A byte-identical retry is identical.
    assert post_events(engine.raw, sid, [tool_result(action, output=text)])[0] == 202


def test_parts_output_is_kept_as_sent(engine):
    sid, action = create_pending(engine)
    parts = [{"type": "input_text", "text": "part one 1.000"}, {"type": "input_text", "text": "part two"}]
    engine.client.beta.agents.sessions.events.create(
        sid,
        events=[
            {
                "type": "agent.session.input.tool_result",
                "turn_id": action["turn_id"],
                "call_id": action["call_id"],
                "success": True,
                "output": parts,
            }
        ],
    )
    wait_idle(engine.raw, sid)
    items = items_raw(engine.raw, sid)
    [output] = outputs(items)
    assert output["output"] == parts and output["error"] is None
    assert CODEX.sent_outputs(engine) == [parts]
    assert items[-1]["content"][0]["text"] == "FINAL: part one 1.000\npart two"


@pytest.mark.parametrize(
    "fields,output,error",
    [
        ({"success": False, "error": "boom"}, None, "boom"),
        ({"success": False, "output": "partial", "error": "boom"}, "partial", "boom"),
        ({"success": True}, None, None),
        ({"success": True, "output": None, "error": None}, None, None),
    ],
    ids=["error-only", "output-and-error", "neither", "explicit-nulls"],
)
def test_result_item_always_carries_output_and_error(engine, fields, output, error):
    sid, action = create_pending(engine)
    event = {"type": "agent.session.input.tool_result", "turn_id": action["turn_id"], "call_id": action["call_id"], **fields}
    assert post_events(engine.raw, sid, [event])[0] == 202
    wait_idle(engine.raw, sid)
    [item] = outputs(items_raw(engine.raw, sid))
    assert set(item) == {"id", "type", "turn_id", "call_id", "output", "error", "status"}
    assert (item["output"], item["error"], item["call_id"]) == (output, error, action["call_id"])
    # The error text reaches the model after the output (the receipt contract's content).
    [sent] = CODEX.sent_outputs(engine)
    sent_text = sent if isinstance(sent, str) else "\n".join(p["text"] for p in sent)
    assert sent_text == "\n".join(t for t in (output, error) if t is not None)
    # The identical event is the identical result.
    assert post_events(engine.raw, sid, [event])[0] == 202


# ---------------------------------------------------------------------------------------------
# Atomic batches.


def test_batch_with_one_invalid_event_writes_nothing(engine):
    sid, action = create_pending(engine)
    before = history_snapshot(engine.raw, sid)
    good = tool_result(action, output="sunny")
    rejected = [
        ([good, tool_result({"turn_id": action["turn_id"], "call_id": "call_other"})], 400,
         invalid("Unknown pending tool call: call_other")),
        ([good, tool_result(action, output="rainy")], 409, conflict(DIFFERENT_RESULT)),
        ([message("one more thing"), good, {"type": "agent.session.input.nope"}], 400, None),
        ([message("one more thing"), tool_result({"turn_id": "turn_00000000000000000000000000000000", "call_id": action["call_id"]})],
         400, invalid(OTHER_TURN)),
    ]
    for events, expected_status, expected_error in rejected:
        status, headers, body = post_events(engine.raw, sid, events)
        assert status == expected_status, body
        if expected_error is not None:
            assert_rejected(status, headers, body, expected_status, expected_error)
        assert history_snapshot(engine.raw, sid) == before
    assert before["required_actions"] == [action]
    assert CODEX.sent_results(engine) == []

    # The valid event alone is then admitted and applied once.
    assert post_events(engine.raw, sid, [good])[0] == 202
    wait_idle(engine.raw, sid)
    assert [o["output"] for o in outputs(items_raw(engine.raw, sid))] == ["sunny"]
    assert [i["content"][0]["text"] for i in items_raw(engine.raw, sid) if i["type"] == "message" and i["role"] == "user"] == [
        "What is the weather in Paris?"
    ]
    assert turn_raw(engine.raw, sid, action["turn_id"])["status"] == "completed"


def test_invalid_result_content_never_consumes_the_call(engine):
    sid, action = create_pending(engine)
    before = history_snapshot(engine.raw, sid)
    for bad, param in [
        ({"output": 42}, "events[0].output"),
        ({"output": [{"type": "output_text", "text": "x"}]}, "events[0].output[0].type"),
        ({"output": [{"type": "input_text"}]}, "events[0].output[0].text"),
        ({"error": 7}, "events[0].error"),
        ({"success": "yes"}, "events[0].success"),
        ({"turn_id": ""}, "events[0].turn_id"),
        ({"call_id": "   "}, "events[0].call_id"),
        ({"extra": 1}, "events[0].extra"),
    ]:
        event = {**tool_result(action, output="sunny"), **bad}
        status, _, body = post_events(engine.raw, sid, [event])
        assert status == 400, (bad, body)
        err = error_of(body)
        assert err["type"] == "invalid_request_error" and err["param"] == param, (bad, err)
        assert history_snapshot(engine.raw, sid) == before
    assert post_events(engine.raw, sid, [tool_result(action, output="sunny")])[0] == 202
    wait_idle(engine.raw, sid)
    assert [o["output"] for o in outputs(items_raw(engine.raw, sid))] == ["sunny"]


def test_cancel_then_result_in_one_batch_is_rejected_whole(engine):
    sid, action = create_pending(engine)
    before = history_snapshot(engine.raw, sid)
    status, headers, body = post_events(engine.raw, sid, [{"type": CANCEL}, tool_result(action)])
    # In batch order the result comes after the cancellation: the batch fails, the cancel with it.
    assert_rejected(status, headers, body, 409, conflict(CANNOT_ACCEPT))
    assert history_snapshot(engine.raw, sid) == before
    assert before["status"] == "requires_action" and before["required_actions"] == [action]


def test_result_admitted_before_cancel_keeps_its_retry_identity(engine):
    sid, action = create_pending(engine)
    result = tool_result(action, output="sunny")
    assert post_events(engine.raw, sid, [result, {"type": CANCEL}])[0] == 202
    turn = wait_turn_ended(engine.raw, sid, action["turn_id"])
    # Completion can win over the cancel; either way the Turn ended and the result stays saved.
    assert turn["status"] in ("cancelled", "completed")
    wait_idle(engine.raw, sid)
    before = history_snapshot(engine.raw, sid)
    status, _, body = post_events(engine.raw, sid, [result])
    assert (status, body) == (202, None)
    status, headers, body = post_events(engine.raw, sid, [tool_result(action, output="rainy")])
    assert_rejected(status, headers, body, 409, conflict(DIFFERENT_RESULT))
    assert history_snapshot(engine.raw, sid) == before
    assert len(outputs(before["items"])) <= 1


def test_creation_stream_stays_open_through_requires_action(engine):
    stream = engine.client.beta.agents.sessions.create(
        environment={"type": "none"},
        agent={"model": "gpt-test", "tools": [WEATHER_FUNCTION]},
        input="What is the weather in Paris?",
        stream=True,
        timeout=60,
    )
    seen = []
    action = None
    for event in stream:
        seen.append(event)
        if event.type == "agent.session.requires_action":
            [action] = event.session.required_actions
            assert event.session.status == "requires_action"
            # Answered by another client, as an application worker would.
            sid = event.session.id
            second = OpenAI(base_url=engine.server.base_url, api_key=API_KEY, max_retries=0)
            second.beta.agents.sessions.events.create(
                sid,
                events=[
                    {
                        "type": "agent.session.input.tool_result",
                        "turn_id": action.turn_id,
                        "call_id": action.call_id,
                        "success": True,
                        "output": "sunny",
                    }
                ],
            )
    kinds = [e.type for e in seen]
    assert action is not None
    # The canonical opening: the Session, then the new Turn with its user Item (output_index null).
    assert kinds[:5] == [
        "agent.session.created",
        "agent.session.turn.created",
        "agent.session.turn.item.added",
        "agent.session.in_progress",
        "agent.session.turn.in_progress",
    ]
    assert seen[1].turn.status == "queued" and seen[1].turn_id == action.turn_id
    assert seen[2].output_index is None and seen[2].item.role == "user"
    assert len({e.event_id for e in seen}) == len(seen)
    # The call is announced before the Session asks for it, and the stream closes after idle.
    call_added = next(
        i for i, e in enumerate(seen) if e.type == "agent.session.turn.item.added" and e.item.type == "function_call"
    )
    assert seen[call_added].item.call_id == action.call_id
    assert call_added < kinds.index("agent.session.requires_action")
    assert kinds[-2:] == ["agent.session.turn.completed", "agent.session.idle"]
    assert kinds.count("agent.session.idle") == 1
    final = [e for e in seen if e.type == "agent.session.turn.item.done" and e.item.type == "message"]
    assert [e.item.content[0].text for e in final] == ["FINAL: sunny"]
