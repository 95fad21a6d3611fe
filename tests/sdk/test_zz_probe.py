import json, sys
sys.path.insert(0, "/work/wt/h2/tests/sdk")
from conftest import *  # noqa
from session_support import wait_idle, session_raw, items_raw, turns_raw, harness_profile
import pytest

BIG = '{"type":"object","properties":{"n":{"type":"integer","maximum":123456789012345678901234567890}}}'

@pytest.mark.parametrize("n", ["18446744073709551615", "18446744073709551616", "-9223372036854775809", "1234567890123456789012345678901234567890", "1e400", "1.5e300", "340282366920938463463374607431768211456"])
def test_big(engine, n):
    h = "codex"
    BIG = '{"type":"object","properties":{"n":{"type":"integer","maximum":%s}}}' % n
    prof = harness_profile(h)
    raw_body = '{"environment":{"type":"none"},"agent":{"model":"%s","tools":[{"type":"function","name":"get_weather","description":"d","parameters":%s}]},"input":"Hi","x_agents_core":{"harness":"%s"}}' % (prof.model, BIG, h)
    st, _, s = engine.raw.request("POST", "/agents/sessions", body=raw_body)
    print(st, str(s)[:100])
    print("created", s["id"])
    import time
    for _ in range(200):
        got = session_raw(engine.raw, s["id"])
        if got["status"] not in ("running", "queued", "in_progress"):
            break
        time.sleep(0.1)
    print(json.dumps(got)[:600])
    print(json.dumps(turns_raw(engine.raw, s["id"]))[:1500])
    for e in engine.journal():
        print("JOURNAL", json.dumps(e)[:1500])
