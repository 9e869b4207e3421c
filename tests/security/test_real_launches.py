"""Issue 56: redaction by context, then shape, over a corpus of real launch lines (`data/real_launches.json`).

Every secret of every launch is hidden and named by a placeholder in its place; every public value (paths after
key-named flags, public and publishable keys, table key names, plain settings, content hashes, the settings
given with `-e`) is recorded as written. `benchmarks/redaction_catch_rate.py` reports both rates on the corpus.
"""

from __future__ import annotations

import json
import random
import string

import pytest

from mcp_codegen.inputs.launch import StdioLaunch
from mcp_codegen.inputs.redaction import placeholder_args
from mcp_codegen_runtime.secret_shapes import public_identifier, public_key, vendor_key, vendor_keys_in
from security.real_launches import DATA, judge, real_launches

LAUNCHES = real_launches()


def test_the_corpus_is_large_and_holds_every_class_of_issue_56() -> None:
    values = [judged for launch in LAUNCHES for judged in judge(launch)]
    assert len(LAUNCHES) >= 80 and len(values) >= 400
    assert sum(judged.secret for judged in values) >= 70
    text = DATA.read_text("utf-8")
    for issue_class in (
        "dop_v1_", "shpat_", "pplx-", "fc-", "key-", "xapp-", "-pbbsgo_password", "--ssh-key", "--tls-key",
        "pk_live_", "--sort-key", "--primary-key", "--signature-algorithm", '"--auth", "github"', "bafy", "Qm",
        "ALPACA_PAPER_TRADE", "BACKLOG_DOMAIN",
    ):  # fmt: skip
        assert issue_class in text, issue_class


@pytest.mark.parametrize("launch", LAUNCHES, ids=lambda launch: launch.source[:60])
def test_each_value_of_a_real_launch_is_hidden_or_kept_as_its_context_says(launch: object) -> None:
    wrong = [judged for judged in judge(launch) if not judged.right]  # type: ignore[arg-type]
    assert not wrong, "; ".join(
        f"{'secret kept' if judged.secret else 'public value changed'}: {judged.where}" for judged in wrong
    )


def test_no_secret_of_the_corpus_reaches_the_record_in_any_part() -> None:
    for launch in LAUNCHES:
        written = json.dumps(StdioLaunch(command=launch.command, args=launch.args, env=launch.env).record().as_json())
        for secret in launch.secrets:
            for part in (secret, secret[: len(secret) // 2], secret[len(secret) // 2 :]):
                if len(part) >= 8:
                    assert part not in written, f"part of a secret of {launch.source!r} recorded"


def test_vendor_keys_are_told_from_placeholders_and_words_by_their_random_body() -> None:
    """The runtime's shape rules (issue 58's recorder reads them too): a vendor prefix with a random body is a
    key; the same prefix before a README placeholder or a word is not."""
    secrets = [secret for launch in LAUNCHES for secret in launch.secrets]
    prefixed = [secret for secret in secrets if vendor_keys_in(secret)]
    assert len(prefixed) >= 25
    for text in ("fc-YOUR_API_KEY", "pplx-xxx", "key-management-service", "shpat_your_access_token", "dop_v1_..."):
        assert vendor_key(text) is None and not vendor_keys_in(text), text
    assert vendor_key("xapp-1-A0123ABCDEF-1234567890123-" + "9f3a" * 16) == "slack app token"
    for public in (
        "pk_live_51H8xYzAbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG",
    ):
        assert public_key(public) and public_identifier(public) and vendor_key(public) is None


@pytest.mark.parametrize("length", [16, 24, 32])
def test_a_random_base64_token_after_a_secret_flag_is_no_path_though_it_holds_a_slash(length: int) -> None:
    """Found once (98% caught at 16 characters): a token such as `Zcv/OOs0FboEvU9D` after `--bearer` was read as
    a file path. A path names its parts (`~/.ssh/id_ed25519`, `path/to/key`); a random token does not."""
    generator = random.Random(f"issue-56-slash-{length}")
    alphabet = string.ascii_letters + string.digits + "+/"
    tokens = ["".join(generator.choice(alphabet) for _ in range(length)) for _ in range(500)]
    for flag in ("--bearer", "--pw", "--access-token", "--ssh-key"):
        kept = [token for token in tokens if token in placeholder_args([flag, token], lambda _h, _i: "${X}")[1]]
        assert not [token for token in kept if "/" in token], (flag, kept[:3])
