"""Drive example-server with the official MCP Python SDK client.

Usage: client.py MODE ROOT TARGET...
  MODE    auto | legacy
  ROOT    the workspace root the server was given
  TARGET  stdio COMMAND [ARGS...]  |  http URL

Calls every tool on ROOT and prints one JSON object with what the client saw.
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
    mode, root, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    target = StdioServerParameters(command=sys.argv[4], args=sys.argv[5:]) if kind == "stdio" else sys.argv[4]
    calls = [
        ("read_file", {"path": "notes.txt", "head": 1}),
        ("list_directory", {}),
        ("directory_tree", {"depth": 1}),
        ("search_files", {"pattern": "alpha"}),
        ("find_files", {"glob": "*.txt"}),
        ("list_directory_with_sizes", {"sort_by": "size"}),
        ("read_multiple_files", {"paths": ["notes.txt", "missing.txt"]}),
        ("read_media_file", {"path": "notes.txt"}),
        ("edit_file", {"path": "notes.txt", "old_texts": ["beta"], "new_texts": ["gamma"], "dry_run": True}),
        ("file_info", {"path": "notes.txt"}),
        ("write_file", {"path": "py/out.txt", "content": "from python\n", "create_dirs": True}),
        ("replace_in_file", {"path": "py/out.txt", "old_text": "python", "new_text": "the Python SDK"}),
        ("create_directory", {"path": "py/dir"}),
        ("move_path", {"source": "py/out.txt", "destination": "py/dir/out.txt"}),
        ("execute_tool", {"name": "run_command", "parameters": {"program": "echo", "args": ["py"]}}),
    ]
    report = {"calls": {}}
    async with Client(target, mode=mode) as client:
        listed = await client.list_tools()
        report["tools"] = sorted(t.name for t in listed.tools)
        for name, args in calls:
            result = await client.call_tool(name, args)
            report["calls"][name] = {
                "is_error": bool(result.is_error),
                "text": texts(result),
                "structured": result.structured_content,
                "types": [c.type for c in result.content],
            }
        bad = await client.call_tool("read_file", {"path": "../escape.txt"})
        report["escape"] = {"is_error": bool(bad.is_error), "text": texts(bad)}
        bad = await client.call_tool("read_file", {"head": "x"})
        report["bad"] = {"is_error": bool(bad.is_error), "text": texts(bad)}
    print(json.dumps(report))


asyncio.run(main())
