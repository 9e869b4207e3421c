"""Conformance of generated clients, checked by the official MCP conformance harness (npm)."""
