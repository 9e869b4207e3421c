"""Each credential form real servers document, passed as a plain `--stdio` argument, stays out of everything written.

The forms of issue 45: a Twilio `ACxxxx/SKxxxx:secret` (as @twilio-alpha/mcp documents), a Stripe live key, a
Slack bot token, a GitHub token, a literal equal to the value of a variable given to the server (`-e`), and a
database URL with a password. A real stdio server (`argv_server.py`) answers with its arguments, so the generated client's
`connect()` is seen to rebuild each one from the environment. The tokens are built at run time: none is a
real credential, and none sits in this file for a secret scanner to trip on.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cli.test_cli import run

from mcp_codegen.inputs.credentials import find_credentials
from mcp_codegen.inputs.redaction import placeholder_args, upper_snake
from security.test_command_secrets import SERVER, call_argv, everything_written

TWILIO_SID = "AC" + "3f1c9e0b7a5d2468" * 2
TWILIO_KEY = "SK" + "9d8e7f6a5b4c3d2e" * 2
TWILIO_SECRET = "Tw1l10SecretV4lue9x8c7v6b5n4m3L2k"
STRIPE = "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc"
SLACK = "xox" + "b-263594206564-2343534682321-" + "tPgFZVLqjxHQkWaQbVbRyTEY"
GITHUB = "gh" + "p_" + "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"
EXPORTED = "Exp0rtedV4lue-6121"
PG_PASSWORD = "pgPassw0rd-7713"
SECRETS = (TWILIO_SID, TWILIO_KEY, TWILIO_SECRET, STRIPE, SLACK, GITHUB, EXPORTED, PG_PASSWORD)
#: Not a secret, but it looks like one: kept with --no-redact.
LOOKS_SECRET = "Zq8Xw7Cv6Bn5Ml4Kj3Hg2Fd1Sa0Pe9Ri"

RECORDED = {
    "TWILIO_ACCOUNT_SID": TWILIO_SID,
    "TWILIO_API_KEY": TWILIO_KEY,
    "TWILIO_API_SECRET": TWILIO_SECRET,
    "STRIPE_ACCESS_KEY": STRIPE,
    "SLACK_TOKEN": SLACK,
    "GITHUB_TOKEN": GITHUB,
    "FORMS_EXPORTED_VALUE": EXPORTED,
    "PASSWORD": PG_PASSWORD,
}


def all_bytes(folder: Path) -> bytes:
    return b"\n".join(path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file())


def test_every_credential_form_is_a_placeholder_with_a_warning_and_connect_reads_it_back(tmp_path: Path) -> None:
    arguments = [
        f"{TWILIO_SID}/{TWILIO_KEY}:{TWILIO_SECRET}",
        "--stripe",
        STRIPE,
        SLACK,
        "--gh",
        GITHUB,
        "--name",
        EXPORTED,
        f"postgresql://user:{PG_PASSWORD}@host/db",
        "--keep",
        LOOKS_SECRET,
    ]
    command = " ".join([sys.executable, SERVER, *arguments])
    package = tmp_path / "forms_client"
    cache = tmp_path / "cache"
    generated = run(
        "generate",
        "--stdio",
        command,
        "--no-redact",
        LOOKS_SECRET,
        "-e",
        f"FORMS_EXPORTED_VALUE={EXPORTED}",
        "-o",
        str(package),
        env={"MCP_CODEGEN_CACHE_DIR": str(cache)},
    )
    assert generated.returncode == 0, generated.stderr
    assert cache.is_dir()  # the run used (and filled) the cache pointed at
    written, cached = everything_written(package), all_bytes(cache)
    for secret in SECRETS:
        assert secret not in written, f"{secret} written into the package"
        assert secret.encode() not in cached, f"{secret} in the cache"
        assert secret not in generated.stdout + generated.stderr, f"{secret} printed"

    launch = json.loads((package / "snapshot.json").read_text("utf-8"))["launch"]
    assert launch["args"] == [
        SERVER,
        "${TWILIO_ACCOUNT_SID}/${TWILIO_API_KEY}:${TWILIO_API_SECRET}",
        "--stripe",
        "${STRIPE_ACCESS_KEY}",
        "${SLACK_TOKEN}",
        "--gh",
        "${GITHUB_TOKEN}",
        "--name",
        "${FORMS_EXPORTED_VALUE}",
        "postgresql://user:${PASSWORD}@host/db",
        "--keep",
        LOOKS_SECRET,
    ]
    specs = (package / "specs.py").read_text("utf-8")
    assert "${TWILIO_API_SECRET}" in specs and "${GITHUB_TOKEN}" in specs  # LAUNCH carries the placeholders
    assert "starting " in generated.stderr and "${SLACK_TOKEN}" in generated.stderr  # the progress line shows them
    for name in set(RECORDED) - {"FORMS_EXPORTED_VALUE"}:  # that one's name was given (-e): no warning
        warning = f"warning[secret-in-command]: launch.args: a secret in the command line is recorded as ${{{name}}}"
        assert generated.stderr.count(warning) == 1, name
    assert LOOKS_SECRET in written  # --no-redact kept it

    called = call_argv(package, RECORDED)
    assert called.returncode == 0, called.stderr
    assert called.stdout.split() == arguments

    missing = call_argv(package, {**RECORDED, "TWILIO_API_SECRET": ""})
    assert missing.returncode != 0
    assert "needs the environment variable ${TWILIO_API_SECRET}, which is not set" in missing.stderr
    assert not any(secret in missing.stderr for secret in SECRETS)


def test_what_is_found_inside_one_argument() -> None:
    def hidden(arg: str, environ: dict[str, str] | None = None, keep: tuple[str, ...] = ()) -> list[tuple[str, str]]:
        return [(arg[span.start : span.end], span.hint) for span in find_credentials(arg, environ or {}, keep)]

    assert hidden(f"{TWILIO_SID}/{TWILIO_KEY}:{TWILIO_SECRET}") == [
        (TWILIO_SID, "twilio account sid"),
        (TWILIO_KEY, "twilio api key"),
        (TWILIO_SECRET, "twilio api secret"),
    ]
    assert hidden(f"--slack={SLACK}") == [(SLACK, "slack token")]  # the whole token, not the plugin's lowercase part
    assert hidden(f"key={EXPORTED},mode=fast", {"B_VAR": EXPORTED, "A_VAR": EXPORTED}) == [(EXPORTED, "$A_VAR")]
    assert hidden("api_key=hello123 mode=fast") == [("hello123", "api_key")]
    assert hidden(f"x{LOOKS_SECRET}") == [(f"x{LOOKS_SECRET}", "secret")]
    assert hidden(LOOKS_SECRET, keep=(LOOKS_SECRET,)) == []
    assert hidden("--token ${MY_TOKEN}") == []  # a reference is never touched
    # Neither paths, package names, identifiers nor UUIDs are secrets; a variable holding a path is no match.
    assert hidden("/usr/lib/node_modules/@modelcontextprotocol/server-everything/dist/index.js") == []
    assert hidden("test_secrets_in_stdio_arguments_a0") == []
    assert hidden("123e4567-e89b-12d3-a456-426614174000") == []
    assert hidden(str(Path.home()), {"HOME": str(Path.home())}) == []


def test_no_redact_keeps_a_url_password_and_numbers_a_second_value_under_one_name() -> None:
    def recorded(args: list[str], keep: tuple[str, ...] = ()) -> list[str]:
        return placeholder_args(args, lambda hint, _index: "${" + upper_snake(hint) + "}", keep=keep)

    assert recorded(["postgresql://user:notsecret@host/db"], keep=("notsecret",)) == [
        "postgresql://user:notsecret@host/db"
    ]
    other = "gh" + "p_" + "A" * 36
    assert recorded([GITHUB, other, GITHUB]) == ["${GITHUB_TOKEN}", "${GITHUB_TOKEN_2}", "${GITHUB_TOKEN}"]
