"""Function result content Claude's declaration cannot carry (images in a failed result, image
URLs that are not inline PNG or JPEG) on the real `claude` binary: refused without consuming the
pending call. The conflict table itself runs on both harnesses in test_sessions_results.py.

Each test gets its own Engine. The mock's built-in default calls the first offered function
once per Turn (`mcp__functions__get_weather` with `{"city": ""}`), then answers
`FINAL: <tool output>`, so a Session created with get_weather waits on one required action."""

import openai
import pytest

from claude_support import create_pending, function_result_blocks
from conftest import error_of
from session_support import history_snapshot, items_raw, post_events, session_raw, tool_result, wait_idle

FAILED_RESULT_IMAGES = "The harness does not support images in a failed function result."
INLINE_RESULT_IMAGES = "The harness supports only inline PNG or JPEG function result images."

# A 1×1 PNG.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
PNG_URL = f"data:image/png;base64,{PNG}"


def outputs(items):
    return [i for i in items if i["type"] == "function_call_output"]


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
