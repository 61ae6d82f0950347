"""The official MCP Python SDK client with a list_roots_callback (legacy
2025-11-25 mode): the server uses its roots, then the new ones after
notifications/roots/list_changed.

Usage: roots.py FIRST SECOND TARGET...
  FIRST, SECOND  directories the client offers as its roots, one then the other
  TARGET         stdio COMMAND [ARGS...]  |  http URL

Prints one JSON object with what the client saw.
"""

import asyncio
import json
import logging
import pathlib
import sys

from mcp import Client, StdioServerParameters, types

# What the SDK logs as a warning or worse fails the test
# (tests/src/python.rs reads these lines from stderr).
logging.basicConfig(level=logging.WARNING, format="SDK %(levelname)s %(name)s: %(message)s")


def texts(result):
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def main() -> None:
    first, second, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    target = StdioServerParameters(command=sys.argv[4], args=sys.argv[5:]) if kind == "stdio" else sys.argv[4]
    offered = [first]
    asked = []

    async def list_roots(context):
        asked.append(list(offered))
        return types.ListRootsResult(roots=[types.Root(uri=pathlib.Path(d).as_uri()) for d in offered])

    report = {}
    async with Client(target, mode="legacy", list_roots_callback=list_roots) as client:
        async def look(label):
            allowed = await client.call_tool("list_allowed_directories", {})
            here = await client.call_tool("read_file", {"path": "here.txt"})
            report[label] = {
                "allowed": allowed.structured_content,
                "here": texts(here),
                "here_is_error": bool(here.is_error),
            }

        await look("before")
        offered[:] = [second]
        await client.send_roots_list_changed()
        # The notification and the next call travel separately: look until
        # the server has taken it (or give up; the test then fails on it).
        # Both calls of one look must see it: the server may take the
        # notification between them.
        for _ in range(50):
            await look("after")
            if all(report["after"][k] != report["before"][k] for k in ("here", "allowed")):
                break
            await asyncio.sleep(0.05)
    report["asked"] = asked
    print(json.dumps(report))


asyncio.run(main())
