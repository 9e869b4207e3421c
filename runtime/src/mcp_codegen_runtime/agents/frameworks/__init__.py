"""One module per agent framework: converters from `AgentTool` to the framework's own tool type."""
