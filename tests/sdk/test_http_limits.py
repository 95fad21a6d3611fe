"""Limits at the HTTP edge that no route handler reaches: a wrong method on a known path, and
the bound on `metadata[k]=v` filters of a Session list."""

import urllib.parse

from conftest import error_of


def test_wrong_method_on_a_known_path_is_405_envelope(raw):
    status, headers, resp = raw.request("PUT", "/agents")
    assert status == 405
    assert error_of(resp) == {
        "message": "Invalid method for URL (PUT /v1/agents)",
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
    assert headers["x-request-id"].startswith("req_")
    status, _, resp = raw.request("PATCH", "/agents/sessions/sess_x/events")
    assert status == 405
    assert error_of(resp)["message"] == "Invalid method for URL (PATCH /v1/agents/sessions/sess_x/events)"


def test_405_still_checks_beta_and_auth_first(raw):
    status, _, resp = raw.request("PUT", "/agents", beta=False)
    assert status == 400 and error_of(resp)["code"] == "invalid_beta"
    status, _, resp = raw.request("PUT", "/agents", auth=False)
    assert status == 401


def _list(raw, pairs):
    query = urllib.parse.urlencode(pairs)
    return raw.request("GET", "/agents/sessions?" + query)


def test_sixteen_metadata_filters_are_a_query(raw):
    status, _, resp = _list(raw, [(f"metadata[k{i}]", "v") for i in range(16)])
    assert status == 200, resp
    assert resp["data"] == []


def test_more_metadata_filters_than_metadata_can_hold_is_400(raw):
    # 932 or more filters once gave 500 ("Expression tree is too large").
    for count in (17, 1000):
        status, _, resp = _list(raw, [(f"metadata[k{i}]", "v") for i in range(count)])
        assert status == 400, resp
        assert error_of(resp) == {
            "message": f"Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with {count} properties instead.",
            "type": "invalid_request_error",
            "param": "metadata",
            "code": "invalid_value",
        }


def test_metadata_filter_key_and_value_lengths_are_bounded(raw):
    status, _, resp = _list(raw, [("metadata[" + "k" * 65 + "]", "v")])
    assert status == 400
    assert error_of(resp)["param"] == "metadata." + "k" * 65
    status, _, resp = _list(raw, [("metadata[k]", "v" * 513)])
    assert status == 400
    assert error_of(resp)["param"] == "metadata.k"
