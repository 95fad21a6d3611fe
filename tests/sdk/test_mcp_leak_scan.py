"""Leak scan (issue 12's proof): a static_bearer Vault credential with a distinctive token, made
through the official SDK, reaches a real MCP server as `Authorization: Bearer <token>` exactly,
through a full MCP Turn on each harness, and appears nowhere else: in no API response body the
test got (the Session's stream, Session, Items, Turns, Vault and credential reads), no file under
the data dir (Core's store, the Sessions' state with the harness homes, config files and
transcripts; binary files included), no line of `serve`'s log at every level, and no live harness
process's `/proc/PID/environ` or `cmdline` (scanned while the Session's harness is resident). A
second, anonymous server of the same Session sees no bearer (Claude Code: a blank
Authorization)."""

import json
import os
import secrets

from session_support import descendants, items_raw, session_raw, turns_raw
from stream_support import as_dicts
from test_mcp_call import ANSWER, SCENARIO, McpServer

# The deployment flag that lets a credential name a loopback HTTP server (a local test server).
LOOPBACK = {"SWITCHBOARD_ALLOW_LOOPBACK_CREDENTIALS": "1", "SWITCHBOARD_LOG": "trace"}


def authorization(request):
    return {k.lower(): v for k, v in request["headers"].items()}.get("authorization")


def files_with(root, needle):
    hits = []
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            try:
                with open(path, "rb") as f:
                    if needle in f.read():
                        hits.append(path)
            except OSError:
                pass  # a socket or a file removed while walking
    return hits


def processes_with(pid, needle):
    """The descendants of `pid` whose environment or command line holds `needle`, and how many
    processes were read (a scan of nothing proves nothing)."""
    hits, read = [], 0
    for p in descendants(pid):
        for part in ("environ", "cmdline"):
            try:
                with open(f"/proc/{p}/{part}", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            read += 1
            if needle in data:
                hits.append((p, part))
    return hits, read


def test_a_vault_bearer_reaches_the_server_and_nothing_else(start_engine, harness, tmp_path):
    token = "sbLeakCanary" + secrets.token_hex(16)
    needle = token.encode()
    lab, anon = McpServer(), McpServer()
    log_path = tmp_path / "serve.log"
    log = open(log_path, "w")
    try:
        engine = start_engine(SCENARIO, env=LOOPBACK, log=log)
        client = engine.client
        bodies = []

        vault = client.beta.agents.vaults.create(name="leak-scan")
        credential = client.beta.agents.vaults.credentials.create(
            vault.id, name="lab", auth={"type": "static_bearer", "mcp_server_url": lab.url, "token": token}
        )
        bodies += [vault.to_dict(), credential.to_dict()]

        tools = [
            {"type": "mcp", "server_label": "lab", "transport": {"type": "http", "server_url": lab.url},
             "allowed_tools": ["get_weather"]},
            {"type": "mcp", "server_label": "anon", "transport": {"type": "http", "server_url": anon.url}},
        ]
        stream = harness.create(engine, stream=True, tools=tools, input="Weather in Paris?", vault_ids=[vault.id])
        stream.with_result_collection()
        events = as_dicts(list(stream))
        result = stream.get_final_result()
        assert result.turn.status == "completed" and result.output_text == ANSWER
        bodies += events
        sid = next(e["session"]["id"] for e in events if "session" in e)

        # The tool ran, and lab's credential was selected implicitly (shown on the Session).
        items = items_raw(engine.raw, sid)
        calls = [i for i in items if i["type"] == "mcp_call"]
        assert [(c["server_label"], c["status"]) for c in calls] == [("lab", "completed")], calls
        session = session_raw(engine.raw, sid)
        declared = {t["server_label"]: t for t in session["agent"]["tools"] if t["type"] == "mcp"}
        assert declared["lab"]["credential_id"] == credential.id
        assert declared["anon"]["credential_id"] is None

        # The bearer exactly, on every request lab saw; none on anon's.
        assert [r["method"] for r in lab.requests].count("tools/call") == 1
        for r in lab.requests:
            assert authorization(r) == f"Bearer {token}", r
        assert anon.requests, "the anonymous server was never contacted"
        for r in anon.requests:
            assert authorization(r) == ("" if harness.name == "claude_code" else None), r

        # Processes: the Session's harness is still resident; scan it and everything else
        # serve started.
        names = " ".join(open(f"/proc/{p}/cmdline", "rb").read().decode(errors="replace")
                         for p in descendants(engine.server.proc.pid) if os.path.exists(f"/proc/{p}"))
        assert harness.process in names, f"no live {harness.process} process to scan: {names}"
        hits, read = processes_with(engine.server.proc.pid, needle)
        assert read > 0 and hits == [], hits

        # Every API response body the test got.
        bodies += [session, items, turns_raw(engine.raw, sid)]
        for path in (f"/vaults/{vault.id}", "/vaults", f"/vaults/{vault.id}/credentials",
                     f"/vaults/{vault.id}/credentials/{credential.id}"):
            status, _, body = engine.raw.request("GET", path)
            assert status == 200, (path, body)
            bodies.append(body)
        leaked = [b for b in bodies if token in json.dumps(b)]
        assert leaked == [], leaked

        # Files: Core's store and every Session's state (harness homes, configs, transcripts).
        assert os.path.isdir(engine.server.data_dir / "sessions")
        assert files_with(engine.server.data_dir, needle) == []

        # The log, at every level: non-empty, and without the token.
        engine.server.stop()
        log.flush()
        text = log_path.read_bytes()
        assert len(text) > 0, "serve logged nothing: the capture is not working"
        assert needle not in text, "the bearer is in serve's log"
    finally:
        log.close()
        lab.stop()
        anon.stop()
