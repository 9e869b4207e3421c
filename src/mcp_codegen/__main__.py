from mcp_codegen.cli import main

main()
