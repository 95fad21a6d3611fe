"""An HTTP MCP server on `environment: none`, on both harnesses (the `harness` fixture), through
the official SDK: the model calls the server's tool, the harness reaches the server through the
Runtime's loopback credential gateway, the result reaches the model, and the Turn records a public
`mcp_call` Item with the declared server label, the server's tool name, the arguments and the
observed output, published as item.added (in_progress) then item.done (completed) and parsed by
the SDK as `AgentMcpCallItem` (execution-tools.md "MCP"; agents-api-wire.md §7, §8).

The MCP server is a real streamable-HTTP server (stdlib, JSON responses) that records every
request's headers: an anonymous server sees no bearer (Claude Code sends a blank Authorization,
so its native OAuth never starts)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from openai.types.beta.agent_mcp_call_item import AgentMcpCallItem

from session_support import items_raw
from stream_support import ITEM_ADDED, ITEM_DONE, as_dicts, assert_items_done_only_for_outputs, item_events

ANSWER = "MCP says: sunny."
NATIVE = "mcp__lab__get_weather"
SCENARIO = {
    "rules": [
        {"name": "call", "when": {"tool_offered": NATIVE, "tool_output_present": False},
         "reply": {"tool_calls": [{"name": NATIVE, "arguments": {"city": "Paris"}}]}},
        {"name": "answer", "when": {"last_kind": "tool_output"}, "reply": {"text": ANSWER}},
    ],
    "otherwise": {"text": "Nothing scripted."},
}


class McpServer:
    """Streamable HTTP MCP: initialize, tools/list (get_weather), tools/call; GET is 405."""

    def __init__(self):
        self.requests = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_DELETE(self):
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"null")
                server.requests.append({"method": body.get("method"), "headers": dict(self.headers.items())})
                if "id" not in body:
                    self.send_response(202)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                method = body["method"]
                if method == "initialize":
                    result = {"protocolVersion": body["params"].get("protocolVersion", "2025-06-18"),
                              "capabilities": {"tools": {}}, "serverInfo": {"name": "sdk-test-mcp", "version": "1"}}
                elif method == "tools/list":
                    result = {"tools": [{"name": "get_weather", "description": "Weather for a city",
                                         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
                                                         "required": ["city"]}}]}
                elif method == "tools/call":
                    city = body["params"]["arguments"].get("city")
                    result = {"content": [{"type": "text", "text": f"weather in {city}: sunny 21C"}], "isError": False}
                else:
                    result = {}
                data = json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/mcp"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()


def test_model_calls_an_mcp_tool_and_the_turn_records_an_mcp_call_item(start_engine, harness):
    mcp = McpServer()
    try:
        engine = start_engine(SCENARIO)
        tools = [{"type": "mcp", "server_label": "lab", "transport": {"type": "http", "server_url": mcp.url},
                  "allowed_tools": ["get_weather"]}]
        stream = harness.create(engine, stream=True, tools=tools, input="Weather in Paris?")
        stream.with_result_collection()
        sdk_events = list(stream)
        events = as_dicts(sdk_events)
        result = stream.get_final_result()
        assert result.turn.status == "completed" and result.output_text == ANSWER

        parsed = [e.item for e in sdk_events if e.type in (ITEM_ADDED, ITEM_DONE) and e.item.type == "mcp_call"]
        assert len(parsed) == 2 and all(isinstance(i, AgentMcpCallItem) for i in parsed), parsed
        assert [i.status for i in parsed] == ["in_progress", "completed"]
        done = parsed[1]
        assert (done.server_label, done.name) == ("lab", "get_weather")
        assert json.loads(done.arguments) == {"city": "Paris"}
        assert "weather in Paris: sunny 21C" in done.output and done.error is None
        assert_items_done_only_for_outputs(events)

        # The stored Item is the one the stream closed with.
        sid = next(e["session"]["id"] for e in events if "session" in e)
        stored = [i for i in items_raw(engine.raw, sid) if i["type"] == "mcp_call"]
        assert stored == [done.to_dict()], stored

        # The tool's result reached the model.
        model_calls = [e for e in engine.journal()
                       if e["method"] == "POST" and e["path"].endswith(("/responses", "/messages"))]
        last = model_calls[-1]["body"]
        assert "weather in Paris: sunny 21C" in json.dumps(last)

        # The server saw the call, anonymously.
        assert [r["method"] for r in mcp.requests].count("tools/call") == 1
        for r in mcp.requests:
            authorization = {k.lower(): v for k, v in r["headers"].items()}.get("authorization")
            assert authorization == ("" if harness.name == "claude_code" else None), r
    finally:
        mcp.stop()
