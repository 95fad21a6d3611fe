#!/usr/bin/env python3
"""How much harness memory does one more live idle thread cost in a shared `codex app-server`?
Usage: codex_threads_memory.py CODEX_BIN PORT N
PORT serves a Responses model that answers text (for example
`switchboard mock-model --listen 127.0.0.1:PORT`). Starts one app-server, then N persistent threads
with one Turn each, and prints the process's /proc smaps_rollup figures after 1, 2, 5, 10, 20, 40
and 80 threads and the slope per extra live idle thread."""
import json, os, subprocess, sys, tempfile, threading, queue, time
bin_, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
home = tempfile.mkdtemp(prefix="codex-home-"); work = tempfile.mkdtemp(prefix="codex-work-")
env = dict(os.environ, CODEX_HOME=home, FAKE_OPENAI_KEY="dummy", RUST_LOG="warn"); env.pop("OPENAI_API_KEY", None)
ov = ['model="gpt-fake"', 'model_provider="fake"', 'model_providers.fake.name="Fake"',
      f'model_providers.fake.base_url="http://127.0.0.1:{port}/v1"', 'model_providers.fake.wire_api="responses"',
      'model_providers.fake.env_key="FAKE_OPENAI_KEY"', 'model_providers.fake.request_max_retries=0',
      'model_providers.fake.stream_max_retries=0', 'web_search="disabled"', 'check_for_update_on_startup=false',
      'analytics.enabled=false', 'feedback.enabled=false']
cmd = [bin_, "app-server"] + sum((["-c", o] for o in ov), [])
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=work, text=True, bufsize=1)
inbox = queue.Queue()
threading.Thread(target=lambda: [inbox.put(json.loads(l)) for l in p.stdout if l.strip()], daemon=True).start()
nid = [0]
def send(m): p.stdin.write(json.dumps(m) + "\n"); p.stdin.flush()
def req(method, params):
    nid[0] += 1; send({"id": nid[0], "method": method, "params": params}); return nid[0]
def wait(pred, timeout=120):
    end = time.time() + timeout
    while True:
        m = inbox.get(timeout=max(0.1, end - time.time()))
        if "id" in m and m.get("method"):
            send({"id": m["id"], "error": {"code": -32601, "message": "no"}}); continue
        if pred(m): return m
def resp(rid): return wait(lambda m: m.get("id") == rid and "method" not in m)
def mem():
    d = {}
    for l in open(f"/proc/{p.pid}/smaps_rollup"):
        k, v = l.split(":", 1)
        if k in ("Rss", "Pss", "Private_Clean", "Private_Dirty", "Anonymous"): d[k] = int(v.split()[0])
    d["private"] = d["Private_Clean"] + d["Private_Dirty"]
    return d
resp(req("initialize", {"clientInfo": {"name": "probe", "title": "p", "version": "0"}, "capabilities": {"experimentalApi": True}}))
send({"method": "initialized"})
tools = [{"type": "function", "name": "get_weather", "description": "w", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]
base = mem(); print("initialized:", base)
rows = []
for i in range(1, n + 1):
    r = resp(req("thread/start", {"model": "gpt-fake", "cwd": work, "approvalPolicy": "never", "sandbox": "read-only",
                                   "baseInstructions": f"instr {i}", "dynamicTools": tools}))
    tid = r["result"]["thread"]["id"]
    resp(req("turn/start", {"threadId": tid, "input": [{"type": "text", "text": f"hello {i}", "text_elements": []}]}))
    wait(lambda m: m.get("method") == "turn/completed" and m["params"].get("threadId", tid) == tid)
    if i in (1, 2, 5, 10, 20, 40, 80) or i == n:
        m = mem(); rows.append((i, m)); print(i, "threads:", m, flush=True)
(i1, m1), (iN, mN) = rows[0], rows[-1]
print(f"per extra live idle thread: private {(mN['private']-m1['private'])/(iN-i1):.0f} KiB, pss {(mN['Pss']-m1['Pss'])/(iN-i1):.0f} KiB; first thread over initialized: {m1['private']-base['private']} KiB private")
p.stdin.close(); p.terminate(); p.wait(timeout=10)
