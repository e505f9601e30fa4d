#!/usr/bin/env python3
"""Drives `sleuth mcp` with the Python `mcp` package's stdio client (a client
sleuth did not write): initialize, list the tools, research a question on a
corpus folder, read the report resource.

usage: mcp_client.py <path to sleuth> <corpus folder>   (SLEUTH_HOME as for sleuth)
Prints one line per check; exits non-zero on the first failure.
"""

import asyncio
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def attr(obj, *names):
    """The first of `names` obj has (the package renamed camelCase fields)."""
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    raise AttributeError(names)


async def main(binary: str, corpus: str) -> None:
    params = StdioServerParameters(
        command=binary,
        args=["mcp", "--set", f"local.corpus={corpus}"],
        env=dict(os.environ),
    )
    progress = []

    async def on_progress(value, total, message):
        progress.append(message)

    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            info = await session.initialize()
            assert attr(info, "server_info", "serverInfo").name == "sleuth", info
            tools = await session.list_tools()
            names = sorted(t.name for t in tools.tools)
            print("tools: " + ", ".join(names))
            # A limit out of the configuration's range is an error, not a session.
            try:
                await session.call_tool("research", {"question": "What is widget 9?", "max_iterations": 1000})
                raise AssertionError("max_iterations 1000 was accepted")
            except Exception as e:  # the package's error class was renamed across versions
                if isinstance(e, AssertionError):
                    raise
                assert "must be between 1 and 100 (got 1000)" in str(e), e
                print("refused: max_iterations 1000")
            result = await session.call_tool(
                "research",
                {"question": "What is the latency of widget 9?", "preset": "simple"},
                progress_callback=on_progress,
            )
            assert not attr(result, "is_error", "isError"), result
            structured = attr(result, "structured_content", "structuredContent") or {}
            status = structured.get("status")
            print(f"research: {status} ({len(progress)} progress notifications)")
            text = result.content[0].text
            assert "## Sources" in text, text
            session_id = structured["session_id"]
            read = await session.read_resource(f"sleuth://sessions/{session_id}/report")
            assert read.contents[0].text == text
            print("resource: report matches")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
