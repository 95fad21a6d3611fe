#!/usr/bin/env python3
"""Regenerates the seed corpora under fuzz/corpus/<target>/ from the real test bodies.

Sources:
- tests/sdk/*.py: the keyword arguments of every SDK call whose arguments are literals
  (`agents.create(...)`, `sessions.create(...)`, `events.create(sid, events=[...])`, ...), and every
  literal dict (for the body gate);
- crates/*/tests/**/*.rs and crates/*/src/**/*.rs: every raw string (r#"..."#) that is a JSON
  object, routed by the test file it comes from;
- crates/protocol/tests/wire_snapshot.json: every Core-Runtime frame, in both directions.

Each seed is named by the SHA-1 of its bytes (as libFuzzer names corpus entries), so running this
again is idempotent and a crash reproducer added by hand sits beside the seeds. Run from anywhere:
`python3 fuzz/seed.py`.
"""

import ast
import hashlib
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
TARGETS = ("body_gate", "agent_body", "session_body", "input_events", "frames")
SDK_ARGS_DROPPED = {"extra_headers", "extra_query", "timeout", "idempotency_key", "stream_options"}

seeds = {t: set() for t in TARGETS}


def add(target, text):
    seeds[target].add(text)
    if target != "frames":
        seeds["body_gate"].add(text)


def route_rust(path):
    """The target a Rust test file's bodies feed, by what the file tests."""
    name = path.name
    if "input_events" in name:
        return "input_events"
    if name.startswith("session_"):
        return "session_body"
    if "execution" in path.parts:
        return "agent_body"
    if "protocol" in path.parts and "crates" in path.parts:
        return "frames"
    return "body_gate"


RAW = re.compile(r'r#"(.*?)"#', re.S)


def rust_seeds():
    for path in sorted(ROOT.glob("crates/*/tests/**/*.rs")) + sorted(ROOT.glob("crates/*/src/**/*.rs")):
        target = route_rust(path.relative_to(ROOT))
        for m in RAW.finditer(path.read_text()):
            text = m.group(1)
            if "{{" in text:  # a format! template, not JSON
                continue
            try:
                value = json.loads(text)
            except ValueError:
                continue
            if not isinstance(value, dict):
                continue
            if target == "frames" and not {"type", "payload"} <= value.keys():
                target_here = "body_gate"
            else:
                target_here = target
            add(target_here, text)


def literal(node):
    try:
        value = ast.literal_eval(node)
        json.dumps(value)
        return True, value
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return False, None


def call_name(func):
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def sdk_target(name):
    if name.endswith("events.create"):
        return "input_events"
    if name.endswith("sessions.create") or name.endswith("sessions.update"):
        return "session_body"
    if name.endswith("agents.create") or name.endswith("agents.update"):
        return "agent_body"
    return None


def python_seeds():
    for path in sorted((ROOT / "tests" / "sdk").glob("**/*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                ok, value = literal(node)
                if ok and value:
                    add("body_gate", json.dumps(value))
                    if "events" in value:
                        add("input_events", json.dumps(value))
                    if value.get("type", "").startswith("agent.session.input."):
                        add("input_events", json.dumps({"events": [value]}))
            if not isinstance(node, ast.Call):
                continue
            target = sdk_target(call_name(node.func))
            if target is None:
                continue
            body = {}
            for kw in node.keywords:
                if kw.arg is None or kw.arg in SDK_ARGS_DROPPED:
                    continue
                ok, value = literal(kw.value)
                if not ok:
                    continue
                if kw.arg == "extra_body" and isinstance(value, dict):
                    body.update(value)
                else:
                    body[kw.arg] = value
            if body:
                add(target, json.dumps(body))


def frame_seeds():
    snapshot = json.loads((ROOT / "crates/protocol/tests/wire_snapshot.json").read_text())
    for direction in ("core_to_runtime", "runtime_to_core"):
        for frame in snapshot[direction]:
            seeds["frames"].add(json.dumps(frame, separators=(",", ":")))


def main():
    rust_seeds()
    python_seeds()
    frame_seeds()
    for target, texts in seeds.items():
        out = CORPUS / target
        out.mkdir(parents=True, exist_ok=True)
        for text in sorted(texts):
            data = text.encode()
            (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
        print(f"{target}: {len(texts)} seeds")


if __name__ == "__main__":
    main()
