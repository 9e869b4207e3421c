"""A server answering `tools/call` in the 2024 `toolResult` form (or without `content`) works through a generated package,
and its stderr chatter goes to the package's logger, not the terminal.

`old_forms_server.py` is a raw JSON-RPC stdio server (no SDK) answering as @cloudflare/mcp-server-cloudflare
0.2.0 does. A package is generated from it, then a script using it runs in a subprocess: the typed calls,
`call_raw()`, the agent tools and the generated command line read the result's content; a result that is no
tool result at all is still a `ProtocolError` quoting what was received.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rt_helpers import HERE, PYTHON

from mcp_codegen_runtime.calls.result_forms import current_call_result

SERVER = str(HERE / "old_forms_server.py")

SCRIPT = """
import logging, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format="log %(name)s %(levelname)s %(message)s")
for name in ("mcp", "client", "httpx2", "anyio", "asyncio"):
    logging.getLogger(name).setLevel(logging.WARNING)
import old_forms_client as package
from old_forms_client import ProtocolError
with package.Client.connect() as client:
    print("typed:", client.zones_list().text)
    print("text:", client.account_name().text)
    print("structured:", client.zone_count().count)
    print("raw:", client.call_raw("zones_list").text)
    output = client.tools()["zones_list"].run_sync({})
    print("agent:", output.text, output.is_error)
    try:
        client.broken()
    except ProtocolError as error:
        print("refused:", str(error).splitlines()[0], "|", "answer" in str(error))
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("old_forms") / "old_forms_client"
    generated = subprocess.run(
        [PYTHON, "-m", "mcp_codegen", "generate", "--cli", "--stdio", f"{PYTHON} {SERVER}", "-o", str(out), "-q"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert generated.returncode == 0, generated.stderr
    return out


def test_old_result_forms_are_read_as_their_content_on_every_path(package: Path) -> None:
    ran = subprocess.run(
        [PYTHON, "-c", SCRIPT], cwd=package.parent, capture_output=True, text=True, timeout=120, check=False
    )
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert "typed: example.com, example.org" in lines
    assert "text: Example Account" in lines
    assert "structured: 2" in lines
    assert "raw: example.com, example.org" in lines
    assert "agent: example.com, example.org False" in lines
    refused = [line for line in lines if line.startswith("refused:")]
    assert refused == [
        "refused: the server's response to the tools/call request for tool 'broken' does not conform to MCP:"
        " 1 validation error for CallToolResult | True"
    ]
    # The server's stderr ("[DEBUG] ..." per call, as Cloudflare's writes) went to the package's logger at INFO.
    assert "log old_forms_client.server INFO [DEBUG] old-forms: calling zones_list" in lines
    assert "old-forms" not in ran.stderr
    compat_logs = [line for line in lines if "2024-10-07 toolResult form" in line]
    assert len(compat_logs) == 4  # one DEBUG line per result read in that form (typed, text, raw, agent)
    # The runtime is a library now: its lines go to its own module's logger.
    assert all(line.startswith("log mcp_codegen_runtime.calls.result_forms DEBUG") for line in compat_logs)


def test_a_chatty_server_stays_off_the_terminal_of_a_script_using_the_client(package: Path) -> None:
    script = "import old_forms_client\nwith old_forms_client.Client.connect() as c:\n    print(c.zones_list().text)\n"
    ran = subprocess.run(
        [PYTHON, "-c", script], cwd=package.parent, capture_output=True, text=True, timeout=120, check=False
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "example.com, example.org\n"
    assert ran.stderr == ""  # no logging configured: the INFO records of old_forms_client.server are not shown


def test_the_generated_command_line_prints_the_content(package: Path) -> None:
    ran = subprocess.run(
        [PYTHON, "-m", "old_forms_client", "zones-list"],
        cwd=package.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert "example.com, example.org" in ran.stdout


@pytest.mark.parametrize(
    ("received", "read"),
    [
        (
            {"toolResult": {"content": [], "isError": True}, "_meta": {"a": 1}},
            {"content": [], "isError": True, "_meta": {"a": 1}},
        ),
        ({"toolResult": {"zones": 2}}, {"content": [{"type": "text", "text": '{"zones": 2}'}]}),
        ({"structuredContent": {"n": 1}}, {"structuredContent": {"n": 1}, "content": []}),
        ({"content": [], "toolResult": "ignored"}, {"content": [], "toolResult": "ignored"}),  # current form: as is
        ({"answer": 42}, {"answer": 42}),  # not a form we know: left for validation to refuse
    ],
)
def test_which_forms_are_read(received: dict[str, object], read: dict[str, object]) -> None:
    assert current_call_result(received) == read
