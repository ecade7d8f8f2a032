"""A document server for the MCP ingestion tests, written with the official
SDK: ``read_document(filename)`` answers from DOCS_ROOT, and DOC_SERVER_MODE
makes it misbehave: wrong_file, error, oversize, hang, binary, and stubborn (hangs,
ignores SIGTERM and leaves a child holding its stdout: only a kill of its
process group ends it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("documents")
ROOT = Path(os.environ["DOCS_ROOT"])
MODE = os.environ.get("DOC_SERVER_MODE", "normal")
Path(os.environ["DOC_SERVER_PIDFILE"]).write_text(str(os.getpid()))
if MODE == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # Inherits stdout, so the pipe stays open while it lives; bounded, should nothing kill it.
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)"], stdout=sys.stdout.fileno()
    )
    Path(os.environ["DOC_SERVER_PIDFILE"] + ".child").write_text(str(child.pid))


@server.tool()
def read_document(filename: str) -> dict[str, Any]:
    """Read one file of the document folder."""
    if MODE in ("hang", "stubborn"):
        time.sleep(3600)
    if MODE == "error":
        raise ToolError("permission denied for " + filename)
    path = ROOT / Path(filename).name
    content = path.read_text("utf-8")
    if MODE == "oversize":
        # About 5.5 MB of UTF-8: over the 4 MiB bound, without tens of MB on the pipe.
        content = content * 100_000
    returned = "other.md" if MODE == "wrong_file" else filename
    content_type = "application/octet-stream" if MODE == "binary" else "text/markdown"
    return {
        "status": "ok",
        "message": "",
        "data": {"filename": returned, "content": content, "content_type": content_type},
    }


if __name__ == "__main__":
    server.run("stdio")
