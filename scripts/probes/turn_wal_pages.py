#!/usr/bin/env python3
"""Which pages does each commit of a prepared function-call Turn write to SQLite's log?

Usage: turn_wal_pages.py SWITCHBOARD_BIN CODEX_BIN [TURNS]   (TURNS defaults to 2)

Starts the mock model and `serve` in a temporary data directory (the same scenario as
`turn_instructions.py`: one Session, its first Turn and three prepared Turns to warm up), notes
where the write-ahead log ends, runs TURNS prepared Turns, copies the database with its log and
stops `serve`. It then reads the log's frames of the current generation past that point (each
frame is one page; a frame with a database size set ends a commit) and names each page's
b-tree (table, index, or a table's overflow pages) with SQLite's `dbstat`. It prints one line a
commit: its page count and the b-trees the pages belong to. The Turn's trace is the commit
that writes `session_traces`. Needs Python's `sqlite3` module built with `dbstat` (Debian's is).
"""
import collections
import os
import shutil
import sqlite3
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import turn_instructions as probe  # noqa: E402  (the scenario's helpers)

# A WAL file starts with a 32-byte header; each frame is a 24-byte header and a page.
WAL_HEADER, FRAME_HEADER = 32, 24


def frames(wal):
    """(offset, page number, database size after commit or 0) of the log's current frames."""
    page_size = struct.unpack(">I", wal[8:12])[0]
    salt = wal[16:24]
    out, offset = [], WAL_HEADER
    while offset + FRAME_HEADER + page_size <= len(wal):
        page, commit = struct.unpack(">II", wal[offset:offset + 8])
        if wal[offset + 8:offset + 16] != salt:
            break  # a frame of an earlier generation: the log was restarted before it
        out.append((offset, page, commit))
        offset += FRAME_HEADER + page_size
    return out


def owners(db):
    """Each page's b-tree, by page number, from `dbstat`."""
    with sqlite3.connect(db) as c:
        return {page: name + (" (overflow)" if "+" in path else "")
                for name, page, path in c.execute("SELECT name, pageno, path FROM dbstat")}


def settle(path, seconds=5.0):
    """Waits until the file at `path` stops growing: the Turn's trace is written after its end."""
    end, last = time.time() + seconds, -1
    while time.time() < end:
        size = os.path.getsize(path)
        if size == last:
            return
        last = size
        time.sleep(0.5)


def main():
    switchboard, codex, turns, work = probe.arguments(2, "turn-wal-pages-", __doc__)
    db = f"{work}/data/switchboard.sqlite"
    with probe.scenario(switchboard, codex, work) as (_, port, session_id):
        settle(f"{db}-wal")
        start = os.path.getsize(f"{db}-wal")
        probe.prepared_turns(port, session_id, turns)
        settle(f"{db}-wal")
        for suffix in ("", "-wal", "-shm"):
            shutil.copy(f"{db}{suffix}", f"{work}/copy.sqlite{suffix}")
    with open(f"{work}/copy.sqlite-wal", "rb") as f:
        wal = f.read()
    names = owners(f"{work}/copy.sqlite")
    commits, current = [], []
    for offset, page, commit in frames(wal):
        if offset < start:
            continue
        current.append(names.get(page, f"page {page} (freed)"))
        if commit:
            commits.append(current)
            current = []
    if not commits:
        sys.exit("no commits past the mark: the log was restarted by a checkpoint; run again")
    for pages in commits:
        counts = ", ".join(f"{name} {n}" if n > 1 else name
                           for name, n in collections.Counter(pages).items())
        print(f"{len(pages):3} pages: {counts}")
    print(f"{sum(map(len, commits))} pages in {len(commits)} commits over {turns} Turns; "
          f"work dir {work}")


if __name__ == "__main__":
    main()
