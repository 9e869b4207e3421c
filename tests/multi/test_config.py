"""Config files and mcp.json files as users write them: parsing, validation messages, starter configs."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import prewarmed
import pytest

from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.config import (
    apply_overrides,
    find_config,
    load_config,
    resolve_server,
    select_servers,
    validate_config,
)
from mcp_codegen.inputs.launch import HttpLaunch, StdioLaunch
from mcp_codegen.inputs.mcp_json import load_mcp_json, starter_config_toml, strip_jsonc

FIXTURES = Path(__file__).parent / "fixtures"


def run(*arguments: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        prewarmed.command(["-m", "mcp_codegen", *arguments]),
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )


# --------------------------------------------------------------------------------------------------
# [tool.mcp-codegen] and mcp-codegen.toml
# --------------------------------------------------------------------------------------------------


def test_unknown_key_is_named_with_the_closest_valid_one() -> None:
    with pytest.raises(UsageError) as caught:
        validate_config({"servers": {"github": {"comand": "npx"}}}, where="mcp-codegen.toml")
    message = str(caught.value)
    assert "unknown key servers.github.comand" in message
    assert "did you mean 'command'?" in message
    assert "\n" not in message


def test_top_level_typo_is_caught_too() -> None:
    with pytest.raises(UsageError, match=r"unknown key outptu \(did you mean 'output'\?\)"):
        validate_config({"outptu": "x", "servers": {}}, where="pyproject.toml")


def test_a_server_needs_exactly_one_of_command_and_url() -> None:
    with pytest.raises(UsageError, match="exactly one of 'command'"):
        validate_config({"servers": {"x": {"command": "a", "url": "http://h/mcp"}}}, where="cfg")
    with pytest.raises(UsageError, match="'headers' go with 'url'"):
        validate_config({"servers": {"x": {"command": "a", "headers": {"A": "b"}}}}, where="cfg")


def test_servers_that_would_share_a_package_are_rejected() -> None:
    with pytest.raises(UsageError, match="would both be package 'my_server'"):
        validate_config({"servers": {"my-server": {"command": "a"}, "my_server": {"command": "b"}}}, where="cfg")


def test_pyproject_table_is_found_from_a_subdirectory(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.mcp-codegen]\noutput = "clients"\n\n'
        '[tool.mcp-codegen.servers.demo]\ncommand = "python"\nargs = ["-m", "mcp_codegen.demo"]\n'
        'include = ["get_*"]\ntool_prefix = "d_"\n'
    )
    nested = tmp_path / "src" / "pkg"
    nested.mkdir(parents=True)
    found = find_config(nested)
    assert found == tmp_path / "pyproject.toml"
    cfg = load_config(found)
    assert cfg.output_dir() == tmp_path / "clients"
    launch, options, package = resolve_server(cfg, "demo")
    assert isinstance(launch, StdioLaunch) and launch.args == ("-m", "mcp_codegen.demo")
    assert options.selection.include == ("get_*",) and options.tool_prefix == "d_"
    assert package == "demo"


def test_mcp_codegen_toml_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-codegen]\noutput = "a"\n')
    (tmp_path / "mcp-codegen.toml").write_text('output = "b"\n')
    assert find_config(tmp_path) == tmp_path / "mcp-codegen.toml"


def test_references_are_expanded_when_a_server_is_resolved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("# comment\nexport FROM_FILE='file value'\n")
    cfg = validate_config(
        {
            "servers": {
                "remote": {"url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
                "local": {
                    "command": "run",
                    "args": ["${workspaceFolder}/x", "${MISSING:-fallback}"],
                    "env": {"A": "${FROM_FILE}"},
                    "env_file": ".env",
                },
            }
        },
        where="cfg",
    ).located(source=tmp_path / "mcp-codegen.toml", base_dir=tmp_path)
    monkeypatch.setenv("HOST", "mcp.example.com")
    monkeypatch.setenv("TOKEN", "s3cret")
    remote, _, _ = resolve_server(cfg, "remote")
    assert isinstance(remote, HttpLaunch)
    assert remote.url == "https://mcp.example.com/mcp"
    assert remote.headers == {"Authorization": "Bearer s3cret"}
    assert remote.header_templates == {"Authorization": "Bearer ${TOKEN}"}  # what generated code records
    local, _, _ = resolve_server(cfg, "local")
    assert isinstance(local, StdioLaunch)
    assert local.args == (f"{tmp_path}/x", "fallback")
    assert local.env["A"] == "file value"


def test_an_unset_variable_is_one_line_naming_where(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOPE_NOT_SET", raising=False)
    cfg = validate_config({"servers": {"x": {"command": "a", "env": {"K": "${NOPE_NOT_SET}"}}}}, where="cfg")
    with pytest.raises(UsageError, match=r"servers\.x\.env\.K.*NOPE_NOT_SET"):
        resolve_server(cfg, "x")


def test_selection_and_command_line_overrides() -> None:
    cfg = validate_config(
        {"servers": {"a": {"command": "x"}, "b": {"command": "y"}, "off": {"command": "z", "enabled": False}}},
        where="cfg",
    )
    assert select_servers(cfg) == ["a", "b"]
    assert select_servers(cfg, ["off"]) == ["off"]  # asked for by name: disabled or not
    with pytest.raises(UsageError, match=r"did you mean 'a'\?|configured"):
        select_servers(cfg, ["aa"])
    changed = apply_overrides(cfg, timeout=5, server={"include": ["get_*"]}, names=["b"])
    assert changed.timeout == 5
    assert changed.servers["b"].include == ["get_*"] and changed.servers["a"].include == []


# --------------------------------------------------------------------------------------------------
# mcp.json files of Claude Desktop, Cursor and VS Code
# --------------------------------------------------------------------------------------------------


def test_claude_desktop_config(tmp_path: Path) -> None:
    cfg = load_mcp_json(FIXTURES / "claude_desktop_config.json", cwd=tmp_path)
    assert list(cfg.servers) == ["filesystem", "github", "postgres", "sqlite"]
    assert cfg.servers["filesystem"].command == "npx"
    assert cfg.servers["filesystem"].args[-1] == "/Users/me/Downloads"
    assert cfg.servers["postgres"].enabled is False
    assert select_servers(cfg) == ["filesystem", "github", "sqlite"]  # the disabled one is left out


def test_cursor_config_with_remote_servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = load_mcp_json(FIXTURES / "cursor_mcp.json", cwd=tmp_path)
    docs, sse, local = cfg.servers["remote-docs"], cfg.servers["legacy-sse"], cfg.servers["local"]
    assert docs.url == "https://docs.example.com/mcp" and docs.kind == "auto"
    assert sse.kind == "sse"
    assert local.env == {"LOG_LEVEL": "debug", "RETRIES": "3"}  # numbers become strings
    monkeypatch.setenv("DOCS_TOKEN", "t0k")
    launch, _, package = resolve_server(cfg, "remote-docs")
    assert isinstance(launch, HttpLaunch) and launch.headers == {"Authorization": "Bearer t0k"}
    assert package == "remote_docs"


def test_vscode_config_with_inputs_comments_and_trailing_commas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / ".vscode").mkdir(parents=True)
    shutil.copy(FIXTURES / "vscode_mcp.json", project / ".vscode" / "mcp.json")
    cfg = load_mcp_json(project / ".vscode" / "mcp.json")
    assert list(cfg.servers) == ["Perplexity", "fetch", "workspace-tool"]
    assert cfg.inputs["perplexity-key"].password is True
    assert cfg.servers["fetch"].kind == "auto"  # VS Code's "http" falls back to SSE
    monkeypatch.delenv("MCP_INPUT_PERPLEXITY_KEY", raising=False)
    with pytest.raises(UsageError, match="set MCP_INPUT_PERPLEXITY_KEY"):
        resolve_server(cfg, "Perplexity")
    monkeypatch.setenv("MCP_INPUT_PERPLEXITY_KEY", "pplx-123")
    launch, _, package = resolve_server(cfg, "Perplexity")
    assert isinstance(launch, StdioLaunch) and launch.env["PERPLEXITY_API_KEY"] == "pplx-123"
    assert package == "perplexity"
    workspace, _, _ = resolve_server(cfg, "workspace-tool")
    assert isinstance(workspace, StdioLaunch)
    assert workspace.args == (f"{project.resolve()}/server.js",)  # the folder .vscode/ configures


@pytest.mark.parametrize(
    ("jsonc", "plain"),
    [
        ('{"a": 1, // note\n}', '{"a": 1         \n}'),  # a comma before a comment before "}"
        ('{"u": "http://x/*y*/", "b": [1,2,]}', '{"u": "http://x/*y*/", "b": [1,2 ]}'),  # markers inside strings
        ('{"q": "say \\"//\\", ",}', '{"q": "say \\"//\\", " }'),  # escaped quotes, a comma in a string
        ('/* a\nb */{"x": [1 , ]}', '    \n    {"x": [1   ]}'),  # newlines kept, so error positions hold
        ('{"s": "a,}\\', '{"s": "a,}\\'),  # an unterminated string (ending in a backslash) runs to the end
        ('{"x": 1} // no newline at the end', '{"x": 1} ' + " " * len("// no newline at the end")),
    ],
)
def test_jsonc_comments_and_trailing_commas_become_spaces(jsonc: str, plain: str) -> None:
    assert strip_jsonc(jsonc) == plain
    assert len(plain) == len(jsonc)


def test_a_broken_mcp_json_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "mcp.json"
    bad.write_text('{"mcpServers": {"x": {"command": "a",}')
    result = run("generate", "--mcp-json", str(bad), "-o", "out", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("mcp-codegen: error: ") and result.stderr.count("\n") == 1
    assert "not valid JSON" in result.stderr


# --------------------------------------------------------------------------------------------------
# init --from: a starter config without secrets
# --------------------------------------------------------------------------------------------------


def test_starter_config_keeps_no_secret_and_loads_back(tmp_path: Path) -> None:
    cfg = load_mcp_json(FIXTURES / "claude_desktop_config.json", cwd=tmp_path)
    text = starter_config_toml(cfg)
    assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in text
    assert "${GITHUB_PERSONAL_ACCESS_TOKEN}" in text
    written = tmp_path / "mcp-codegen.toml"
    written.write_text(text)
    loaded = load_config(written)
    assert list(loaded.servers) == list(cfg.servers)
    assert loaded.servers["postgres"].enabled is False


def test_init_from_writes_the_starter_and_refuses_to_overwrite(tmp_path: Path) -> None:
    result = run("init", "--from", str(FIXTURES / "claude_desktop_config.json"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "4 servers" in result.stderr
    assert "ghp_" not in result.stderr and "ghp_" not in (tmp_path / "mcp-codegen.toml").read_text()
    tomllib.loads((tmp_path / "mcp-codegen.toml").read_text())
    again = run("init", "--from", str(FIXTURES / "claude_desktop_config.json"), cwd=tmp_path)
    assert again.returncode == 4 and "--force" in again.stderr


def test_generate_without_any_source_explains_the_options(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    result = run("generate", cwd=tmp_path)
    assert result.returncode == 2
    assert "mcp-codegen.toml" in result.stderr and "--mcp-json" in result.stderr
