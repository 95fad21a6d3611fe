"""Helpers for the Claude Code Session suites (test_claude_*.py): selecting the `claude_code`
harness per Session, and reading what the real `claude` binary sent to the mock model's
Anthropic Messages endpoint.

Binary facts these helpers lean on (claude 2.1.332, crates/claude/tests):
- public functions are tools of the adapter's MCP server `functions`, so the model sees
  `get_weather` as `mcp__functions__get_weather`, and the call id is the model's tool-use id;
- claude appends a system "# Environment" message after the first user message, so rules on
  the last item's text cannot see the first request's user text;
- a function result reaches the model as a `tool_result` block under the call's tool-use id."""

from conftest import WEATHER_FUNCTION
from session_support import Harness

HARNESS = {"x_agents_core": {"harness": "claude_code"}}
MODEL = "claude-test"
WEATHER = "mcp__functions__get_weather"


class ClaudeHarness(Harness):
    """claude_code: selected per Session with `x_agents_core`, the model speaks the Anthropic
    Messages API, and a function is a tool of the adapter's MCP server `functions`."""

    name = "claude_code"
    model = MODEL
    weather = WEATHER
    process = "claude"
    unknown_call_id = "toolu_does_not_exist"
    extra_body = HARNESS

    def model_calls(self, engine, since=0):
        return messages_calls(engine, since)

    def sent_results(self, engine):
        """(tool-use id, text of its tool_result block), each call once, in first-seen order."""
        return [(c, block_text(b)) for c, b in tool_result_blocks(engine).items()]

    def sent_wire_results(self, engine):
        """{tool-use id: the content of its tool_result block}."""
        return {c: b.get("content") for c, b in tool_result_blocks(engine).items()}

    def wire_result(self, text):
        return [{"type": "text", "text": text}]

    def assert_sent_result(self, engine, call_id, text, is_error=False):
        """One tool_result block under the call's tool-use id with that text, flagged is_error
        exactly when the result failed."""
        block = function_result_blocks(engine, [call_id])[call_id]
        assert block_text(block) == text
        assert bool(block.get("is_error")) is is_error, block

    def user_texts(self, entry):
        return [
            b.get("text")
            for m in entry["body"]["messages"]
            if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"]
        ]


CLAUDE = ClaudeHarness()


def create(engine, stream=False, tools=(WEATHER_FUNCTION,), input="What is the weather in Paris?", agent=None, **kwargs):
    """`sessions.create` of a claude_code Session on environment none."""
    return CLAUDE.create(engine, stream=stream, tools=tools, input=input, agent=agent, **kwargs)


def create_raw(engine, body):
    """POST /agents/sessions with a raw JSON body (the harness added)."""
    return CLAUDE.create_raw(engine, body)


def create_pending(engine, tools=(WEATHER_FUNCTION,), text="What is the weather in Paris?"):
    """A non-streamed claude Session whose first Turn waits on one function call.
    Returns (session id, the required action as JSON)."""
    return CLAUDE.create_pending(engine, tools=tools, text=text)


# ---------------------------------------------------------------------------------------------
# The mock's journal, Anthropic side.


def messages_calls(engine, since=0):
    """Journal entries of Anthropic Messages model requests (not count_tokens or probes)."""
    return [e for e in engine.journal()[since:] if e["path"] == "/v1/messages" and e["method"] == "POST"]


def offered_tool_names(entry):
    return [t.get("name") for t in (entry["body"].get("tools") or [])]


def block_text(block):
    """The text of a tool_result block: its string content or its text blocks joined."""
    content = block.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content if b.get("type") == "text")


def tool_result_blocks(engine):
    """Every distinct tool_result block the model received, by tool-use id in first-seen order
    (each request repeats the history, so a block appears again in later requests)."""
    found = {}
    for entry in messages_calls(engine):
        for msg in entry["body"].get("messages") or []:
            content = msg.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found.setdefault(block["tool_use_id"], block)
    return found


def function_result_blocks(engine, call_ids):
    """The tool_result blocks for these calls (what the functions' results became)."""
    blocks = tool_result_blocks(engine)
    return {c: blocks[c] for c in call_ids if c in blocks}
