"""The services: an MCP server for agents (and, later, the HTTP API)."""
