//! The MCP Streamable HTTP reverse proxy (filled in by the next increment).
