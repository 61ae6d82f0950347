"""Drive example-server's confirmations with the official MCP Python SDK client.

Usage: confirm.py MODE ANSWER TARGET...
  MODE    auto (2026-07-28 when the server offers it) | legacy (2025-11-25 sessions)
  ANSWER  accept | decline | none (no elicitation callback at all)
  TARGET  stdio COMMAND [ARGS...]  |  http URL

Calls move_path a.txt -> b.txt and prints one JSON object: the result and the
questions the callback was asked.
"""

import asyncio
import json
import logging
import sys

from mcp import Client, StdioServerParameters, types

# What the SDK logs as a warning or worse fails the test
# (tests/src/python.rs reads these lines from stderr).
logging.basicConfig(level=logging.WARNING, format="SDK %(levelname)s %(name)s: %(message)s")


def texts(result):
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def main() -> None:
    mode, answer, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    target = StdioServerParameters(command=sys.argv[4], args=sys.argv[5:]) if kind == "stdio" else sys.argv[4]
    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        if answer == "accept":
            return types.ElicitResult(action="accept", content={})
        return types.ElicitResult(action="decline")

    options = {} if answer == "none" else {"elicitation_callback": on_elicit}
    async with Client(target, mode=mode, **options) as client:
        result = await client.call_tool("move_path", {"source": "a.txt", "destination": "b.txt"})
        report = {"is_error": bool(result.is_error), "text": texts(result), "asked": asked}
    print(json.dumps(report))


asyncio.run(main())
