"""The HTTP gates in their contract order: beta header before auth, 401 with WWW-Authenticate,
then the body gate (content type, size, UTF-8, JSON syntax, duplicate keys, object root).
Every rejected request writes nothing."""

import re

import openai
import pytest
from openai import OpenAI

from conftest import error_of

BETA_MSG = "To access the Agents API, set the 'OpenAI-Beta' header to 'agents=v1'."
SYNTAX_MSG = (
    "Invalid body: failed to parse JSON value. Please check the value to ensure it is valid JSON. "
    "(Common errors include trailing commas, missing closing brackets, missing quotation marks, etc.)"
)


def agent_count(raw):
    _, _, body = raw.request("GET", "/agents?limit=100")
    return len(body["data"])


def test_beta_header_checked_before_auth(raw):
    for headers in [{}, {"OpenAI-Beta": "assistants=v2"}]:
        status, h, body = raw.request("GET", "/agents", beta=False, auth=False, headers=headers)
        assert status == 400
        assert error_of(body) == {"message": BETA_MSG, "type": "invalid_beta", "param": None, "code": "invalid_beta"}
        assert re.fullmatch(r"req_[0-9a-f]{32}", h["X-Request-Id"])


def test_unauthenticated_is_401_with_www_authenticate(raw):
    for headers in [{}, {"Authorization": "Bearer sk-sb-wrong"}, {"Authorization": "Basic abc"}]:
        status, h, body = raw.request("GET", "/agents", auth=False, headers=headers)
        assert status == 401
        assert h["WWW-Authenticate"] == "Bearer"
        assert error_of(body) == {
            "message": "A valid Agents API bearer key is required.",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }


def test_sdk_sees_authentication_error(server):
    c = OpenAI(base_url=server.base_url, api_key="sk-sb-wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        c.beta.agents.list()


@pytest.mark.parametrize(
    "body,content_type,status,message",
    [
        ('{"model":"m"}', "text/plain", 400, "expected request with Content-Type: application/json"),
        (b'{"model":"\xff"}', "application/json", 400,
         "Invalid body: encountered a unicode decode error when parsing this JSON value. Please check the value to ensure it is valid unicode."),
        ('{"model":"m",}', "application/json", 400, SYNTAX_MSG),
        ('{"model":"m","tools":[{"type":"tool_search","type":"tool_search"}]}', "application/json", 400,
         "Invalid body: duplicate JSON key 'type' at 'tools[0].type'. Duplicate JSON keys are not supported."),
        ("[1]", "application/json", 400, "Invalid type: expected an object, but got an array instead."),
    ],
)
def test_body_gate_errors_write_nothing(raw, body, content_type, status, message):
    before = agent_count(raw)
    got, _, resp = raw.request("POST", "/agents", body=body, content_type=content_type)
    assert got == status
    err = error_of(resp)
    assert err["message"] == message
    assert err["type"] == "invalid_request_error" and err["param"] is None
    assert agent_count(raw) == before


def test_oversized_body_is_413(raw):
    body = '{"model":"m","instructions":"' + "x" * (1 << 20) + '"}'
    status, _, resp = raw.request("POST", "/agents", body=body)
    assert status == 413
    assert error_of(resp)["code"] == "request_too_large"


def test_empty_body_is_an_empty_object(raw):
    # {} lacks the required model: the error is about the member, not the body.
    status, _, resp = raw.request("POST", "/agents", body=b"", content_type=None)
    assert status == 400
    assert error_of(resp) == {
        "message": "Missing required parameter: 'model'.",
        "type": "invalid_request_error",
        "param": "model",
        "code": "missing_required_parameter",
    }


def test_unknown_member_by_exact_name(raw):
    status, _, resp = raw.request("POST", "/agents", body={"model": "m", "Model": "x"})
    assert status == 400
    err = error_of(resp)
    assert err["message"] == "Unknown parameter: 'Model'." and err["param"] == "Model"
    assert err["code"] == "unknown_parameter"
    status, _, resp = raw.request("POST", "/agents", body={"model": "m", "tool_choice": "auto"})
    assert error_of(resp)["message"] == "Unknown parameter: 'tool_choice'."


def test_invalid_member_has_json_path_param(raw):
    body = {"model": "m", "tools": [{"type": "function", "name": "f", "description": "d", "parameters": {}, "defer_loading": None}]}
    status, _, resp = raw.request("POST", "/agents", body=body)
    assert status == 400
    err = error_of(resp)
    assert err["param"] == "tools[0].defer_loading"
    assert err["code"] == "invalid_type"
    assert err["message"] == "Invalid type for 'tools[0].defer_loading': expected a boolean, but got null instead."


def test_list_limit_bounds(raw):
    status, _, resp = raw.request("GET", "/agents?limit=0")
    assert status == 400
    assert error_of(resp)["message"] == "Invalid 'limit': integer below minimum value. Expected a value >= 1, but got 0 instead."
    assert error_of(resp)["code"] == "integer_below_min_value"
    status, _, resp = raw.request("GET", "/agents?limit=101")
    assert status == 400 and error_of(resp)["param"] == "limit"
    status, _, resp = raw.request("GET", "/agents?order=sideways")
    assert status == 400
    assert error_of(resp)["message"] == "Invalid value: 'sideways'. Supported values are: 'asc' and 'desc'."


def test_unknown_route_is_404_envelope(raw):
    status, _, resp = raw.request("GET", "/nothing-here")
    assert status == 404
    assert error_of(resp)["type"] == "not_found_error"


# ---------------------------------------------------------------------------------------------
# Protocol errors (execution-tools "Admission"): whole-body conflicts with the official fields,
# param null, on Agent save and on Session create, and nothing is written.

TEXT_ARRAY_ROOT = {"format": {"type": "json_schema", "schema": {"type": "array", "items": {"type": "string"}}}}
STRING_ROOT_FUNCTION = {"type": "function", "name": "f", "description": "", "parameters": {"type": "string"}}
PROTOCOL_ERRORS = [
    ({"tools": [{"type": "web_search"}, {"type": "web_search", "mode": "cached"}]}, "duplicate web_search tool"),
    ({"tools": [{"type": "tool_search"}, {"type": "tool_search"}]}, "duplicate tool_search tool"),
    ({"text": TEXT_ARRAY_ROOT}, '{p}text.format.schema must have top-level type "object"; got "array"'),
    ({"tools": [STRING_ROOT_FUNCTION]},
     "Invalid schema for function 'f': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"string\"'."),
]
PROTOCOL_IDS = ["repeated-web-search", "repeated-tool-search", "text-schema-array-root", "function-schema-string-root"]


def protocol_error(message):
    return {"message": message, "type": "invalid_request_error", "param": None, "code": "invalid_request_error"}


@pytest.mark.parametrize("members,message", PROTOCOL_ERRORS, ids=PROTOCOL_IDS)
def test_protocol_errors_on_agent_save(raw, members, message):
    status, _, body = raw.request("POST", "/agents", body={"model": "m", **members})
    assert status == 400
    assert error_of(body) == protocol_error(message.replace("{p}", ""))
    assert agent_count(raw) == 0


@pytest.mark.parametrize("members,message", PROTOCOL_ERRORS, ids=PROTOCOL_IDS)
def test_protocol_errors_on_session_create(raw, members, message):
    body = {"environment": {"type": "none"}, "agent": {"model": "m", **members}, "input": "Hello"}
    status, _, resp = raw.request("POST", "/agents/sessions", body=body)
    assert status == 400
    assert error_of(resp) == protocol_error(message.replace("{p}", "agent."))
    _, _, listed = raw.request("GET", "/agents/sessions")
    assert listed["data"] == []
