"""The mock's documented token rule, as a test oracle: a maximal run of letters and digits is
one token, every other non-whitespace character is one token (docs/mock-model.md)."""

import re

_TOKEN = re.compile(r"[^\W_]+|[^\w\s]|_")


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))
