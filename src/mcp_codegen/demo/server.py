"""The demo MCP server: weather, arithmetic and a tiny read-only notebook.

Everything it returns is derived from its inputs and a fixed data set (no clocks, no randomness), so
its schemas and results are stable enough to commit a generated client and golden files against.

What it exercises, on purpose:

* ``get_weather``: a pydantic model return (structured output with an ``outputSchema``), a ``Literal`` enum
  parameter with a default, and parameter descriptions.
* ``add``: a primitive return, which the SDK wraps as ``{"result": ...}``.
* ``list_notes``: a ``list[Note]`` return (also wrapped as ``{"result": [...]}``).
* ``draft_note``: a nested object parameter (``Author``), optional nullable parameters, constrained fields.
* ``search-notes``: a tool name that is not a Python identifier, returning a model that nests a list of models.
* ``get_note``: raises ``ToolError`` for an unknown id, so clients see ``isError: true``.
* ``forecast``: plain text content and no output schema at all.
* Resources ``config://app`` (static, JSON) and ``notes://{note_id}`` (template), and the prompts
  ``summarize_note`` (a required and an optional argument) and ``plan_trip``.
"""

import json
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.mcpserver.prompts.base import AssistantMessage, Message, UserMessage
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

__all__ = [
    "INSTRUCTIONS",
    "NAME",
    "VERSION",
    "Author",
    "Note",
    "SearchResults",
    "Weather",
    "build_server",
]

NAME = "demo"
VERSION = "1.0.0"
INSTRUCTIONS = (
    "A demo server with fake, deterministic data. Use get_weather or forecast for weather, add for "
    "arithmetic, and list_notes / search-notes / get_note to browse a small read-only notebook; "
    "draft_note validates a new note without saving it."
)

Units = Literal["celsius", "fahrenheit"]
Conditions = Literal["sunny", "cloudy", "rainy", "windy", "snowy"]
Priority = Literal["low", "normal", "high"]
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

_CONDITIONS: tuple[Conditions, ...] = ("sunny", "cloudy", "rainy", "windy")  # "snowy" only below 1 °C


# --------------------------------------------------------------------------------------------------
# Models (they become the generated client's models)
# --------------------------------------------------------------------------------------------------


class Weather(BaseModel):
    """Current (fake) weather for a city."""

    city: str = Field(description="The city, as given.")
    temperature: float = Field(description="Temperature in the requested units, one decimal place.")
    units: Units = Field(description="Units of `temperature`.")
    conditions: Conditions = Field(description="Sky conditions.")
    humidity: int = Field(ge=0, le=100, description="Relative humidity in percent.")


class Author(BaseModel):
    """Who wrote a note."""

    name: str = Field(min_length=1, description="Display name.")
    email: str | None = Field(default=None, description="Contact address, if any.")


class Note(BaseModel):
    """A note in the demo notebook."""

    id: str = Field(description="Stable identifier, usable in `notes://{note_id}`.")
    title: str
    body: str
    tags: list[str] = Field(default_factory=list)
    priority: Priority = "normal"
    author: Author | None = None


class SearchResults(BaseModel):
    """Notes matching a search query, best match first."""

    query: str
    total: int = Field(description="Number of matching notes before `limit` was applied.")
    notes: list[Note]


# --------------------------------------------------------------------------------------------------
# Fixed data
# --------------------------------------------------------------------------------------------------

_NOTES: tuple[Note, ...] = (
    Note(
        id="welcome",
        title="Welcome to the demo",
        body="This notebook is read-only. Try search-notes with 'weather' or get_note with 'ideas'.",
        tags=["meta"],
        priority="high",
        author=Author(name="Demo Bot", email="bot@example.com"),
    ),
    Note(
        id="groceries",
        title="Groceries",
        body="Bread, cheese, tomatoes, an umbrella in case the weather turns rainy.",
        tags=["home", "shopping"],
        priority="low",
    ),
    Note(
        id="ideas",
        title="Ideas",
        body="Generate a typed client for every MCP server; check the weather before a trip to Paris.",
        tags=["work"],
        author=Author(name="Ada"),
    ),
)

_APP_CONFIG: dict[str, object] = {
    "name": NAME,
    "version": VERSION,
    "default_units": "celsius",
    "features": {"notes": True, "weather": True, "writes": False},
}


def _seed(text: str) -> int:
    """A stable number derived from ``text`` (``hash()`` is salted per process, this is not)."""
    return sum((i + 1) * ord(ch) for i, ch in enumerate(text.strip().lower()))


def _weather(city: str, units: Units) -> Weather:
    seed = _seed(city)
    celsius = -4.0 + (seed % 360) / 10.0  # -4.0 .. 31.9
    temperature = celsius if units == "celsius" else celsius * 9.0 / 5.0 + 32.0
    conditions: Conditions = "snowy" if celsius < 1.0 else _CONDITIONS[seed % len(_CONDITIONS)]
    return Weather(
        city=city,
        temperature=round(temperature, 1),
        units=units,
        conditions=conditions,
        humidity=20 + seed % 75,
    )


def _find_note(note_id: str) -> Note | None:
    return next((note for note in _NOTES if note.id == note_id), None)


def _slug(text: str) -> str:
    words = "".join(ch if ch.isalnum() else " " for ch in text.lower()).split()
    return "-".join(words) or "untitled"


# --------------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------------


def build_server(*, log_level: LogLevel = "WARNING") -> MCPServer:
    """Build a fresh demo server instance (nothing is shared between instances)."""
    mcp: MCPServer = MCPServer(NAME, version=VERSION, instructions=INSTRUCTIONS, log_level=log_level)

    @mcp.tool(
        title="Current weather",
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
    )
    def get_weather(
        city: Annotated[str, Field(description="City name, e.g. 'Paris'.")],
        units: Annotated[Units, Field(description="Temperature units.")] = "celsius",
    ) -> Weather:
        """Get the current weather for a city (fake but deterministic data)."""
        return _weather(city, units)

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False))
    def add(a: int, b: int) -> int:
        """Add two integers and return their sum."""
        return a + b

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def list_notes(
        tag: Annotated[str | None, Field(description="Only notes with this tag; all notes when null.")] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="Maximum number of notes to return.")] = 10,
    ) -> list[Note]:
        """List the notes in the notebook, optionally filtered by tag."""
        notes = [note for note in _NOTES if tag is None or tag in note.tags]
        return notes[:limit]

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def draft_note(
        title: Annotated[str, Field(min_length=1, max_length=120, description="Note title.")],
        body: str,
        author: Annotated[Author, Field(description="Who is writing the note.")],
        tags: Annotated[list[str] | None, Field(description="Tags to attach; none when null.")] = None,
        priority: Priority = "normal",
    ) -> Note:
        """Validate a new note and return it as it would be stored, with an id derived from the title (nothing is saved)."""
        return Note(id=_slug(title), title=title, body=body, tags=tags or [], priority=priority, author=author)

    @mcp.tool(
        name="search-notes",
        title="Search notes",
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
    )
    def search_notes(
        query: Annotated[str, Field(min_length=1, description="Case-insensitive text to look for.")],
        limit: Annotated[int, Field(ge=1, le=50)] = 5,
    ) -> SearchResults:
        """Search note titles and bodies for some text."""
        needle = query.lower()
        scored = [
            (note.title.lower().count(needle) * 10 + note.body.lower().count(needle), index, note)
            for index, note in enumerate(_NOTES)
        ]
        hits = [note for score, _, note in sorted(scored, key=lambda item: (-item[0], item[1])) if score > 0]
        return SearchResults(query=query, total=len(hits), notes=hits[:limit])

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False))
    def get_note(note_id: Annotated[str, Field(description="The note's id, e.g. 'welcome'.")]) -> Note:
        """Get one note by id. Fails (isError) when there is no such note."""
        note = _find_note(note_id)
        if note is None:
            known = ", ".join(n.id for n in _NOTES)
            raise ToolError(f"No note with id {note_id!r} (known ids: {known})")
        return note

    @mcp.tool(structured_output=False, annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def forecast(
        city: str,
        days: Annotated[int, Field(ge=1, le=7, description="Number of days, 1 to 7.")] = 3,
    ) -> str:
        """A human-readable multi-day forecast, as plain text (no structured output)."""
        lines = [f"Forecast for {city}:"]
        for day in range(1, days + 1):
            weather = _weather(f"{city}#{day}", "celsius")
            lines.append(f"  day {day}: {weather.conditions}, {weather.temperature:.1f} °C")
        return "\n".join(lines)

    @mcp.resource(
        "config://app",
        name="app_config",
        title="App configuration",
        description="The demo server's configuration, as JSON.",
        mime_type="application/json",
    )
    def app_config() -> str:
        return json.dumps(_APP_CONFIG, indent=2, sort_keys=True)

    @mcp.resource(
        "notes://{note_id}",
        name="note",
        title="Note",
        description="One note as Markdown.",
        mime_type="text/markdown",
    )
    def note_resource(note_id: str) -> str:
        note = _find_note(note_id)
        if note is None:
            raise ResourceNotFoundError(f"No note with id {note_id!r}")
        tags = " ".join(f"#{tag}" for tag in note.tags)
        return f"# {note.title}\n\n{note.body}\n\n{tags}\n"

    @mcp.prompt(title="Summarize a note")
    def summarize_note(
        note_id: Annotated[str, Field(description="Id of the note to summarize.")],
        style: Annotated[str, Field(description="How to write the summary, e.g. 'one sentence'.")] = "bullet points",
    ) -> str:
        """Ask the model to summarize one of the notes."""
        note = _find_note(note_id)
        text = note.body if note is not None else f"(no note with id {note_id!r})"
        return f"Summarize this note as {style}:\n\n{text}"

    @mcp.prompt(title="Plan a trip")
    def plan_trip(city: Annotated[str, Field(description="Destination city.")]) -> list[Message]:
        """Start a short conversation about planning a trip to a city."""
        weather = _weather(city, "celsius")
        return [
            UserMessage(f"I'm going to {city}. What should I pack?"),
            AssistantMessage(
                f"It is {weather.conditions} and {weather.temperature:.1f} °C in {city}. Let's plan around that."
            ),
            UserMessage("Suggest a three-item packing list."),
        ]

    return mcp
