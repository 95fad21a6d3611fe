#!/usr/bin/env python3
"""How much CPU do idle harness processes take under `switchboard serve`?

Usage: idle_cpu.py SWITCHBOARD_BIN HARNESS_BIN [SESSIONS]   (SESSIONS defaults to 10)
       HARNESS=codex (default) or claude_code; SETTLE=seconds to wait after the last Turn (5).
       Each window's line also gives the processes' mean proportional set size (Pss).

Starts the mock model and `serve` (no warm pool) in a temporary data directory, runs SESSIONS
new Sessions to the end of their first Turn, each keeping its own harness process, waits SETTLE
seconds, then reads the run time of every thread of every harness process (`schedstat`, ns) at
the start and end of three 10-second windows, and prints the CPU per second they took, in all,
per process, and by thread name. Threads that end within a window are left out of it. Idle
processes are the ones a Runtime keeps for Sessions between Turns (up to `idle_timeout`) and its
warm pool (until one is bound), so what they take runs beside every active Turn.
"""
import collections
import glob
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import turn_instructions as probe  # noqa: E402  (the scenario's helpers)

PROCESS_NAME = {"codex": "codex", "claude_code": "claude"}
MODEL = {"codex": "gpt-test", "claude_code": "claude-test"}
BINARY_ENV = {"codex": "SWITCHBOARD_CODEX_BIN", "claude_code": "SWITCHBOARD_CLAUDE_BIN"}


def run_times(process_name):
    """Run time so far of every thread of the processes called `process_name`, by (pid, tid, name)."""
    times = {}
    for task in glob.glob("/proc/[0-9]*/task/*"):
        pid, tid = task.split("/")[2], task.split("/")[4]
        try:
            if not open(f"/proc/{pid}/comm").read().startswith(process_name):
                continue
            name = open(f"{task}/comm").read().strip()
            times[(pid, tid, name)] = int(open(f"{task}/schedstat").read().split()[0])
        except (OSError, ValueError):
            continue
    return times


def pss_kib(process_name):
    """Proportional set size of each process called `process_name` (KiB), by pid."""
    sizes = {}
    for status in glob.glob("/proc/[0-9]*/smaps_rollup"):
        pid = status.split("/")[2]
        try:
            if not open(f"/proc/{pid}/comm").read().startswith(process_name):
                continue
            rollup = open(status).read()
            sizes[pid] = int(re.search(r"^Pss:\s+(\d+) kB", rollup, re.M).group(1))
        except (OSError, AttributeError):
            continue
    return sizes


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    switchboard, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    sessions = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    harness = os.environ.get("HARNESS", "codex")
    settle = int(os.environ.get("SETTLE", "5"))
    work = tempfile.mkdtemp(prefix="idle-cpu-")
    env = {BINARY_ENV[harness]: binary}
    with probe.served(switchboard, work, env, flags=("--default-harness", harness)) as (_, port):
        agent = dict(probe.agent(), model=MODEL[harness])
        for _ in range(sessions):
            probe.first_turn(port, agent)
        time.sleep(settle)
        for _ in range(3):
            before, start = run_times(PROCESS_NAME[harness]), time.time()
            time.sleep(10)
            after, seconds = run_times(PROCESS_NAME[harness]), time.time() - start
            by_name = collections.Counter()
            for key, ns in after.items():
                if key in before:
                    by_name[key[2]] += ns - before[key]
            processes = len({key[0] for key in after})
            total = sum(by_name.values()) / seconds / 1e6
            names = ", ".join(f"{name} {ns / seconds / 1e6:.2f}" for name, ns in by_name.most_common(4))
            pss = pss_kib(PROCESS_NAME[harness])
            mean_mib = sum(pss.values()) / max(len(pss), 1) / 1024
            print(f"{harness}: {processes} idle processes take {total:.2f} ms of CPU per second, "
                  f"{total / max(processes, 1):.3f} each (by thread: {names}); "
                  f"Pss {mean_mib:.1f} MiB each", flush=True)


if __name__ == "__main__":
    main()
