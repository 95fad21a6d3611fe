#!/usr/bin/env python3
"""Where does `switchboard serve`'s CPU go in a prepared function-call Turn, by task and subsystem?

Usage: turn_cpu_profile.py SWITCHBOARD_BIN CODEX_BIN [TURNS]   (TURNS defaults to 60)

The scenario of `turn_instructions.py` (one Session, its first Turn and three prepared Turns to
warm up), with `serve` running natively under `perf record --call-graph dwarf` (4 kHz, CPU
clock) for TURNS prepared Turns. Each sample of `serve`'s threads is then put in two bins: its
task (the kind of future its stack runs in, if one of these: Core's loop over Runtime frames, an
HTTP connection, the adapter's driver or reader, the Runtime's frame loop, the trace store) and
its subsystem (the frame nearest the leaf that names one: SQLite, tracing, JSON, the allocator,
hyper and axum, socket and pipe I/O, parking), with "[k]" when the sample is in the kernel.
Shares include the kernel (system calls, scheduling), which callgrind's instruction counts leave
out; they are shares only, as copying each sample's stack inflates the process's CPU time. The
probe's client opens a connection per request, so HTTP weighs more here than behind a pooling
client such as the `session_turn` bench's. Needs `perf` with access to the process (root,
or `perf_event_paranoid` ≤ 1) and `serve` built with debug info (the release profile has it).
"""
import collections
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import turn_instructions as probe  # noqa: E402  (the scenario's helpers)

TASKS = [
    ("Core: Runtime frames", r"link_frames"),
    ("HTTP connections", r"listen::serve"),
    ("adapter driver", r"adapter_kit::turn::run"),
    ("adapter reader", r"jsonrpc::read_loop"),
    ("Runtime frame loop", r"frame_loop"),
    ("trace store", r"telemetry::turns"),
]
SUBSYSTEMS = [
    ("SQLite", r"sqlite3_step|sqlite3_prepare|sqlite3_reset|rusqlite"),
    ("tracing", r"tracing_opentelemetry|opentelemetry|tracing_subscriber|tracing_core|tracing::span|TurnSpans"),
    ("JSON parse", r"serde_json::de|Deserialize|parse_strict"),
    ("JSON write", r"serde_json::ser|json_text|Serialize"),
    ("allocator", r"^_?mi_|mi_malloc|mi_free|__rust_alloc|__rust_dealloc|realloc"),
    ("park", r"epoll_wait|park|mio::poll"),
    ("socket and pipe I/O", r"sys_write|sys_read|sys_sendto|sys_recvfrom|sys_writev|sys_readv|tcp_|sock_|pipe_"),
    ("hyper and axum", r"hyper::|axum|tower|http::"),
]
KERNEL = re.compile(r"do_syscall_64|entry_SYSCALL|asm_sysvec|irqentry")


def samples(perf_data):
    """Each sample's stack (leaf first) from `perf script`."""
    out = subprocess.run(["perf", "script", "-i", perf_data, "-F", "comm,tid,ip,sym"],
                         capture_output=True, text=True, check=True).stdout
    stack = None
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith("\t"):
            if stack is not None:
                yield stack
            stack = []
        else:
            parts = line.strip().split(" ", 1)
            stack.append(parts[1] if len(parts) > 1 else "")
    if stack is not None:
        yield stack


def classify(stack):
    task = next((name for name, pattern in TASKS if any(re.search(pattern, f) for f in stack)),
                "other")
    subsystem = "other"
    for frame in stack:
        hit = next((name for name, pattern in SUBSYSTEMS if re.search(pattern, frame)), None)
        if hit:
            subsystem = hit
            break
    if any(KERNEL.search(f) for f in stack):
        subsystem += " [k]"
    return task, subsystem


def main():
    switchboard, codex, turns, work = probe.arguments(60, "turn-cpu-profile-", __doc__)
    perf_data = f"{work}/perf.data"
    with probe.scenario(switchboard, codex, work) as (serve, port, session_id):
        recorder = subprocess.Popen(
            ["perf", "record", "-F", "4000", "--call-graph", "dwarf,32768", "-o", perf_data,
             "-p", str(serve.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)  # perf attaches asynchronously; an early Turn would be partly missed
        probe.prepared_turns(port, session_id, turns)
        recorder.send_signal(2)
        recorder.wait()
    tasks, subsystems, total = collections.Counter(), collections.Counter(), 0
    for stack in samples(perf_data):
        task, subsystem = classify(stack)
        tasks[task] += 1
        subsystems[subsystem] += 1
        total += 1
    # Shares only: copying each sample's stack for the unwinding is charged to the process, so
    # its sample count overstates its CPU time (`perf stat` gives that).
    print(f"serve: {total} samples over {turns} prepared Turns; profile {perf_data}")
    for title, counts in (("by task", tasks), ("by subsystem", subsystems)):
        print(title)
        for name, n in counts.most_common():
            print(f"  {100 * n / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
