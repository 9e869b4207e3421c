"""Recorded sessions: writing them as they happen (`record=`), answering from them (`replay()`), the pytest plugin.

Modules: `envelope` (the file: one JSON-RPC message a line, mcporter's `_meta` envelope), `redact` (secrets
become placeholders as lines are written), `tap` (a transport that records), `replay` (an in-memory server
answering from a recording), `plan` (which connection records or replays), `cassette` and `pytest_plugin`
(one file per test). Observed result types are made from recordings by the generator (`--results-from`).
"""
