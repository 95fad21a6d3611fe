"""A Core restart fails the Turns it had started, without replaying anything, and the Session
stays usable (execution-tools "Required actions and recovery": claimed work fails without
replay after execution loss)."""

from session_support import create_pending, session_raw, wait_for


def test_restart_fails_a_started_turn_and_keeps_the_session_usable(engine):
    sid, action = create_pending(engine)
    # Same data directory, same model provider.
    engine.restart()
    raw = engine.raw
    session = session_raw(raw, sid)
    assert session["status"] == "failed"
    assert session["error"] == "The execution could not complete."
    assert session["required_actions"] == []
    status, _, turn = raw.request("GET", f"/agents/sessions/{sid}/turns/{action['turn_id']}")
    assert status == 200
    assert turn["status"] == "failed"
    assert turn["error"] == {"code": "internal_error", "message": "The execution could not complete."}

    # The call was never answered; the Turn is over, so a first result now is refused.
    client = engine.client
    status, _, body = raw.request(
        "POST",
        f"/agents/sessions/{sid}/events",
        body={
            "events": [
                {
                    "type": "agent.session.input.tool_result",
                    "turn_id": action["turn_id"],
                    "call_id": action["call_id"],
                    "success": True,
                    "output": "late",
                }
            ]
        },
    )
    assert status == 409
    assert body["error"]["message"] == "The Turn cannot accept this input in its current state."

    # New input starts a new Turn that runs to the end.
    client.beta.agents.sessions.events.create(
        sid, events=[{"type": "agent.session.input.message", "input": "hello again"}]
    )
    wait_for(lambda: session_raw(raw, sid), lambda s: s["status"] == "requires_action", what="a new call")
    turns = client.beta.agents.sessions.turns.list(sid, order="asc").data
    assert [t.status for t in turns][:1] == ["failed"]
    assert len(turns) == 2
