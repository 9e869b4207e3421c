"""Output: staged, atomic writes over directories mcp-codegen owns, and the several-server umbrella."""
