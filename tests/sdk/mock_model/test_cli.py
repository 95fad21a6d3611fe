"""`switchboard mock-model` as a command: first stdout line, script errors, signals."""

import json
import signal
import subprocess

from .mock_support import mock_model_command


def test_the_first_line_is_the_base_url(mock):
    assert mock.first_line.endswith("\n")
    host, port = mock.first_line.strip().removeprefix("http://").split(":")
    assert host == "127.0.0.1" and int(port) > 0
    assert "/" not in port


def test_sigterm_and_sigint_stop_it_cleanly(start_mock):
    for sig in (signal.SIGTERM, signal.SIGINT):
        mock = start_mock()
        mock.proc.send_signal(sig)
        assert mock.proc.wait(timeout=10) == 0


def test_a_bad_script_fails_with_the_place_of_the_mistake(tmp_path):
    script = tmp_path / "scenario.json"
    script.write_text(json.dumps({"rules": [{"reply": {"error": {"status": 200}}}]}))
    done = subprocess.run(mock_model_command() + ["--script", str(script)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert done.stdout == ""
    assert "rules[0].reply" in done.stderr


def test_an_unknown_member_is_refused(tmp_path):
    script = tmp_path / "scenario.json"
    script.write_text(json.dumps({"rules": [{"when": {"tools": "x"}, "reply": {}}]}))
    done = subprocess.run(mock_model_command() + ["--script", str(script)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert "unknown field `tools`" in done.stderr
