"""Opening and owning a connection: transports (stdio, streamable HTTP, SSE, in-process) and the session task."""
