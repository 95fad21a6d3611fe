"""Fixtures for the mock model suite: a real `switchboard mock-model` process per test, started
the way the README's offline demo and users' CI start it (see mock_support.py).

This folder is a package (it has an `__init__.py`) so this conftest does not shadow the SDK
suite's own top-level `conftest` module."""

import pytest

from .mock_support import MockModel


@pytest.fixture
def start_mock(tmp_path):
    """Starts a mock with an optional scenario (a dict written to a file for --script)."""
    started = []

    def start(scenario=None, extra=()):
        directory = tmp_path / f"mock{len(started)}"
        directory.mkdir()
        mock = MockModel(directory, scenario, extra)
        started.append(mock)
        return mock

    yield start
    for mock in started:
        mock.stop()


@pytest.fixture
def mock(start_mock):
    """A mock with the built-in default behaviour."""
    return start_mock()
