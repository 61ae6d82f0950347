"""The tutorial's server, called with the MCP Python SDK (pip install mcp==2.3.0).

Usage: python try_it.py COMMAND [ARGS...]   (the server on stdio)
       python try_it.py http://127.0.0.1:8080/mcp
"""

import asyncio
import sys

from mcp import Client, StdioServerParameters


async def main() -> None:
    target = sys.argv[1]
    if not target.startswith("http"):
        target = StdioServerParameters(command=target, args=sys.argv[2:])
    async with Client(target) as client:
        listed = await client.list_tools()
        print(sorted(tool.name for tool in listed.tools))
        found = await client.call_tool("search_notes", {"query": "milk"})
        print(found.content[0].text)
        # A task tool whose `task` is "optional" runs in the call for a
        # client that asks for no task, as this one does.
        counted = await client.call_tool("count_words", {})
        print(counted.content[0].text)


asyncio.run(main())
