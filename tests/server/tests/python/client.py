"""Drive the test server with the official MCP Python SDK client.

Usage: client.py MODE TARGET...
  MODE    auto | legacy
  TARGET  stdio COMMAND [ARGS...]  |  http URL

Prints one JSON object with what the client saw.
"""

import asyncio
import json
import logging
import sys

from mcp import Client, StdioServerParameters

# What the SDK logs as a warning or worse fails the test
# (tests/src/python.rs reads these lines from stderr).
logging.basicConfig(level=logging.WARNING, format="SDK %(levelname)s %(name)s: %(message)s")


def texts(result):
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def main() -> None:
    mode = sys.argv[1]
    kind = sys.argv[2]
    if kind == "stdio":
        target = StdioServerParameters(command=sys.argv[3], args=sys.argv[4:])
    else:
        target = sys.argv[3]
    report = {}
    async with Client(target, mode=mode) as client:
        listed = await client.list_tools()
        report["tools"] = sorted(t.name for t in listed.tools)
        echo = await client.call_tool("echo", {"text": "hi", "times": 2})
        report["echo"] = {"text": texts(echo), "is_error": bool(echo.is_error)}
        stats = await client.call_tool("stats", {"numbers": [1, 2, 6]})
        report["stats"] = {"structured": stats.structured_content, "text": texts(stats), "is_error": bool(stats.is_error)}
        greet = await client.call_tool("greet", {"name": "Py"})
        report["greet"] = texts(greet)
        bad = await client.call_tool("echo", {"times": "many"})
        report["bad"] = {"text": texts(bad), "is_error": bool(bad.is_error)}
    print(json.dumps(report))


asyncio.run(main())
