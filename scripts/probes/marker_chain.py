#!/usr/bin/env python3
"""Splits `session_turn`'s result delivery into Switchboard's share and the harness's own.

Every Turn of the bench answers its function call with a marker unique to that Turn
(`<<direct:N:T>>`, `<<switchboard:N:T>>`), and that marker travels in the bytes of each hop: the
client's `tool_result` POST, the JSON-RPC answer the adapter writes to codex's stdin, and codex's
follow-up model request to the mock. Traced with

    strace --seccomp-bpf -f -tt -s 100000 -e trace=writev,sendto,recvfrom,write -e signal=none \
        -o trace.txt target/release/deps/session_turn-<hash> --bench

(`SESSION_TURN_HARNESS=codex`, run from `crates/switchboard`; `--seccomp-bpf` leaves untraced
syscalls at full speed), this prints per Turn the time from the marker's first write (the POST
on switchboard, the stdin write on direct) to the stdin write ("switchboard's share": HTTP,
admission, the store commit, the frame, the Runtime, the adapter) and from the stdin write to
the follow-up request's `writev` ("the harness's share"), then their medians per side and Turn.
Syscall tracing inflates both a little; compare the two sides, not absolute values.
"""
import collections
import re
import statistics
import sys

LINE = re.compile(r"^(\d+)\s+(\d+):(\d+):(\d+\.\d+)\s+(?:<\.\.\. )?(\w+)[\( ]")
MARK = re.compile(r"<<(direct|switchboard):(\d+):(\d)>>")
# A model request with its whole conversation is tens of kilobytes; nothing else carrying the
# marker is that long.
REQUEST_BYTES = 10_000


def main(path):
    marks = collections.defaultdict(list)
    for line in open(path, errors="replace"):
        m = LINE.match(line)
        if not m:
            continue
        _pid, h, mi, s, call = m.groups()
        t = int(h) * 3600 + int(mi) * 60 + float(s)
        for mark in set(MARK.findall(line)):
            marks[mark].append((t, call, len(line), line[:200]))
    split = collections.defaultdict(list)
    for mark in sorted(marks, key=lambda k: marks[k][0][0]):
        events = marks[mark]
        stdin = [e for e in events if e[1] == "write" and 'result\\":{\\"contentItems' in e[3]]
        request = [e for e in events if e[1] == "writev" and e[2] > REQUEST_BYTES]
        if not (stdin and request):
            continue
        ours = (stdin[0][0] - events[0][0]) * 1000
        harness = (request[0][0] - stdin[0][0]) * 1000
        print(f"{':'.join(mark):<18} switchboard's share {ours:7.2f} ms   harness {harness:7.2f} ms")
        split[(mark[0], mark[2])].append((ours, harness))
    print()
    for (side, turn), rows in sorted(split.items()):
        print(
            f"{side:<12} Turn {turn}: n={len(rows):<3} share p50 "
            f"{statistics.median(r[0] for r in rows):6.2f} ms   harness p50 "
            f"{statistics.median(r[1] for r in rows):6.2f} ms"
        )


if __name__ == "__main__":
    main(sys.argv[1])
