from mcp_codegen._console import main

main()
