"""Call the demo server through its generated, typed client.

Generate the client first (``scripts/demo.sh`` does both steps)::

    mcp-codegen generate --stdio "python -m mcp_codegen.demo" -o /tmp/mcp-codegen-demo/demo_client --overwrite
    PYTHONPATH=/tmp/mcp-codegen-demo python examples/demo_call.py
"""

import sys

from demo_client import Client, ToolError


def main() -> int:
    with Client.stdio(sys.executable, ["-m", "mcp_codegen.demo"]) as client:
        total = client.add(a=2, b=3)  # a plain int: the client unwraps the SDK's {"result": ...}
        print(f"add(2, 3) = {total}")

        weather = client.get_weather(city="Paris")  # a pydantic model
        print(f"Paris: {weather.temperature} {weather.units}, {weather.conditions}, humidity {weather.humidity}%")
        weather_f = client.get_weather(city="Oslo", units="fahrenheit")
        print(f"Oslo: {weather_f.temperature} {weather_f.units}, {weather_f.conditions}")

        for note in client.list_notes(tag="work"):  # a list of models
            print(f"note {note.id!r}: {note.title} (priority {note.priority})")

        hits = client.search_notes(query="weather", limit=2)  # the tool is named "search-notes" on the wire
        print(f"search 'weather': {hits.total} hits, first: {[note.id for note in hits.notes]}")

        try:
            client.get_note(note_id="nope")  # the server answers isError: true
        except ToolError as exc:
            print(f"get_note('nope') failed as expected: {type(exc).__name__}: {exc}")
        else:
            print("get_note('nope') unexpectedly succeeded", file=sys.stderr)
            return 1

        print("config://app ->", client.resources.app_config().text[:60], "...")
        prompt = client.prompts.plan_trip(city="Lisbon")
        print("prompt plan_trip ->", prompt.text[:60], "...")
    return 0


if __name__ == "__main__":
    sys.exit(main())
