"""Public values real launches pass that look random but are no secret: each must be recorded as written.

Shared by the redaction tests and `benchmarks/redaction_catch_rate.py` (which reports how many change).
"""

from __future__ import annotations

GIT_SHA = "9fceb02d0ae598e95dc970b74767f19372d61af8"
IMAGE_DIGEST = "sha256:" + "4b0f6fbf3c3d9a8e2b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a"
NOTION_PAGE = "59833787b7e94f5c9e39aa1b28b7a4d1"
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
SHEET_ID = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"
STRIPE_PRICE = "price_1MoBy5LkdIwHu7ixZhnattbh"
SSH_PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dev@laptop"
SSH_RSA_BLOB = "AAAAB3NzaC1yc2EAAAADAQABAAABAQC7vbqajDhA8sG2kqPq1Qr6gXz5b8aT0y3jF9Lk2mNp4Rw7Hs1Ue"
CLIENT_ID = "Iv1.8a61f9b3a7aba766"
PROJECT_ID = "Zx9Qm2Lr7Tb4Kw8Yp3Vn6Hc1"

#: Each entry is one launch's arguments (after the command), recorded unchanged.
PUBLIC_ARGUMENTS: tuple[tuple[str, ...], ...] = (
    (f"--revision={GIT_SHA}",),
    ("--revision", GIT_SHA),
    (f"git+https://github.com/acme/tools@{GIT_SHA}",),
    (f"acme/tools@{GIT_SHA}",),
    (f"ghcr.io/github/github-mcp-server@{IMAGE_DIGEST}",),
    ("--image", f"docker.io/mcp/postgres@{IMAGE_DIGEST}"),
    ("--page", NOTION_PAGE),
    (NOTION_PAGE,),
    (f"https://www.notion.so/Meeting-Notes-{NOTION_PAGE}",),
    ("--trace-id", TRACE_ID),
    ("--spreadsheet-id", SHEET_ID),
    (f"--sheet-id={SHEET_ID}",),
    (f"https://docs.google.com/spreadsheets/d/{SHEET_ID}/edit",),
    ("--price", STRIPE_PRICE),
    (f"--default-price={STRIPE_PRICE}",),
    ("--authorized-key", SSH_PUBLIC_KEY),
    (SSH_RSA_BLOB,),
    ("--token-limit", "100000"),
    ("--max-tokens=4096",),
    ("--auth-mode", "oauth"),
    ("--auth-type=bearer",),
    ("--auth", "oauth"),
    ("-p", "8080"),
    ("--client-id", CLIENT_ID),
    ("--project-id", PROJECT_ID),
    (f"--workspace-id={PROJECT_ID}",),
    ("--region=us-east-1",),
    ("postgresql://localhost:5432/app",),
    ("--model", "claude-sonnet-4-20250514"),
    ("--profile", "MyCompanyProductionServer"),
    ("--role", "arn:aws:iam::123456789012:role/ExampleOrganization2024"),
    ("-y", "@modelcontextprotocol/server-everything@2026.8.31"),
    ("123e4567-e89b-12d3-a456-426614174000",),
    ("--header", "Accept: application/json"),
    ("--header", "X-Request-Id: 7f3c2a1b-9d8e-4f6a-b5c4-d3e2f1a0b9c8"),
    ("--secret-id", "prod/app/database"),
    ("--token-file", "/run/secrets/token"),
)
