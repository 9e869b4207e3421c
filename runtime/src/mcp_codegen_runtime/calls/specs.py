"""Descriptions of the tools, prompts, resources and templates a client was generated for.

Specs are built at import time (hundreds of them), so construction only stores strings. Everything
else is read on first use: schemas and descriptions from the package's embedded `snapshot.json`,
model classes by importing their module.
"""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from pydantic import BaseModel, ValidationError

from .errors import SnapshotError
from .tasks import TaskSupport
from .ui import DEFAULT_VISIBILITY, ToolUI

if TYPE_CHECKING:
    from mcp_types import Icon

    from .arguments import SchemaCheck

__all__ = ["PromptSpec", "ResourceSpec", "SnapshotData", "TemplateSpec", "ToolSpec"]

ArgsT = TypeVar("ArgsT", bound=BaseModel)
ResultT = TypeVar("ResultT")

_JsonObject = dict[str, Any]


def _objects(
    data: Mapping[str, Any], key: str, index_key: str
) -> dict[str, _JsonObject]:
    items = data.get(key)
    found: dict[str, _JsonObject] = {}
    if isinstance(items, list):
        for entry in cast("list[object]", items):
            if isinstance(entry, dict):
                item = cast("_JsonObject", entry)
                name = item.get(index_key)
                if isinstance(name, str):
                    found.setdefault(name, item)
    return found


class SnapshotData:
    """The package's `snapshot.json`, read once on first use and indexed by name (or URI)."""

    __slots__ = ("_index", "_lock", "path")

    path: Path

    def __init__(self, package_dir: Path | str) -> None:
        path = Path(package_dir)
        if path.suffix == ".json":
            self.path = path
        else:
            # A module's __file__ is accepted too: the snapshot sits beside it.
            self.path = (
                path.parent if path.suffix in (".py", ".pyc") else path
            ) / "snapshot.json"
        self._index: dict[str, Any] | None = None
        self._lock = threading.Lock()

    def _load(self) -> dict[str, Any]:
        index = self._index
        if index is not None:
            return index
        with self._lock:
            if self._index is None:
                try:
                    data = json.loads(self.path.read_text(encoding="utf-8"))
                except FileNotFoundError:
                    raise SnapshotError(
                        f"{self.path}: the package's snapshot file is missing"
                    ) from None
                except (OSError, UnicodeDecodeError, ValueError) as error:
                    raise SnapshotError(
                        f"{self.path}: cannot read the package's snapshot ({type(error).__name__})"
                    ) from None
                if not isinstance(data, dict):
                    raise SnapshotError(
                        f"{self.path}: not a snapshot (expected a JSON object)"
                    )
                data = cast("_JsonObject", data)
                self._index = {
                    "data": data,
                    "tools": _objects(data, "tools", "name"),
                    "prompts": _objects(data, "prompts", "name"),
                    "resources": _objects(data, "resources", "uri"),
                    "templates": _objects(
                        data,
                        "resourceTemplates",
                        "uriTemplate",
                    ),
                }
            return self._index

    @property
    def data(self) -> dict[str, Any]:
        """The whole snapshot as parsed (do not mutate)."""
        data: dict[str, Any] = self._load()["data"]
        return data

    def _item(self, kind: str, key: str) -> _JsonObject | None:
        items: dict[str, _JsonObject] = self._load()[kind]
        return items.get(key)

    def tool(self, name: str) -> _JsonObject | None:
        """The tool's wire dict as listed by the server, or None."""
        return self._item("tools", name)

    def prompt(self, name: str) -> _JsonObject | None:
        return self._item("prompts", name)

    def resource(self, uri: str) -> _JsonObject | None:
        return self._item("resources", uri)

    def template(self, uri_template: str) -> _JsonObject | None:
        return self._item("templates", uri_template)

    @property
    def tool_names(self) -> list[str]:
        return list(self._load()["tools"])

    @property
    def server_info(self) -> dict[str, Any]:
        info = self.data.get("serverInfo")
        return dict(cast("_JsonObject", info)) if isinstance(info, dict) else {}

    def __repr__(self) -> str:
        return f"SnapshotData({str(self.path)!r})"


def _optional_str(item: Mapping[str, Any] | None, key: str) -> str | None:
    value = item.get(key) if item is not None else None
    return value if isinstance(value, str) else None


def _icons(item: Mapping[str, Any] | None) -> tuple[Icon, ...]:
    """The listed `icons` as the SDK's `Icon` models; an entry that is not a valid icon is left out."""
    listed: object = item.get("icons") if item is not None else None
    if not isinstance(listed, list) or not listed:
        return ()
    from mcp_types import Icon

    icons: list[Icon] = []
    for entry in cast("list[object]", listed):
        try:
            icons.append(Icon.model_validate(entry))
        except ValidationError:
            continue
    return tuple(icons)


def _optional_dict(item: Mapping[str, Any] | None, key: str) -> dict[str, Any] | None:
    value: object = item.get(key) if item is not None else None
    if isinstance(value, dict):
        return copy_json(cast(dict[str, Any], value))
    return None


JsonT = TypeVar("JsonT")


def copy_json(value: JsonT) -> JsonT:
    """A deep copy of JSON data (dicts, lists, scalars): about 3x faster than `copy.deepcopy`."""
    if isinstance(value, dict):
        items = cast(dict[str, Any], value).items()
        return cast(JsonT, {key: copy_json(item) for key, item in items})
    if isinstance(value, list):
        return cast(JsonT, [copy_json(item) for item in cast(list[Any], value)])
    return value


def _load_class(module: str, name: str) -> type[BaseModel]:
    cls = getattr(importlib.import_module(module), name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
        raise SnapshotError(
            f"{module}.{name} is not a pydantic model (the generated package is inconsistent)"
        )
    return cls


class ToolSpec(Generic[ArgsT, ResultT]):
    """One tool: its wire name, its models (imported on first use) and its listed schemas."""

    __slots__ = (
        "_arguments_check",
        "_arguments_model",
        "_description_override",
        "_wire_names",
        "_resolved",
        "_result_field",
        "_result_check",
        "_result_model",
        "_task_support",
        "arguments_class",
        "models_module",
        "name",
        "observed",
        "python_name",
        "result_class",
        "snapshot",
        "ui",
        "unwrap_result",
    )

    name: str
    python_name: str
    models_module: str
    arguments_class: str
    result_class: str | None
    unwrap_result: bool
    snapshot: SnapshotData
    #: The result model was made from recorded answers (`--results-from`): the tool declares no output schema.
    observed: bool
    #: MCP Apps: the tool's `_meta.ui` (UI resource and visibility) as listed at generation, or None.
    ui: ToolUI | None

    def __init__(
        self,
        *,
        name: str,
        python_name: str,
        models_module: str,
        arguments_class: str,
        result_class: str | None,
        unwrap_result: bool,
        snapshot: SnapshotData,
        description: str | None = None,
        ui_resource_uri: str | None = None,
        ui_visibility: Sequence[str] | None = None,
        observed: bool = False,
    ) -> None:
        self.name = name
        self.observed = observed
        self.ui = (
            ToolUI(
                resource_uri=ui_resource_uri,
                visibility=(
                    DEFAULT_VISIBILITY
                    if ui_visibility is None
                    else tuple(ui_visibility)
                ),
            )
            if ui_resource_uri is not None or ui_visibility is not None
            else None
        )
        #: A description chosen at generation (`--descriptions`), replacing the server's.
        self._description_override = description
        self.python_name = python_name
        self.models_module = models_module
        self.arguments_class = arguments_class
        self.result_class = result_class
        self.unwrap_result = unwrap_result
        self.snapshot = snapshot
        self._resolved = False
        self._arguments_model: type[ArgsT] | None = None
        self._result_model: type[BaseModel] | None = None
        self._result_field: str | None = None
        self._arguments_check: SchemaCheck | None = None
        self._result_check: SchemaCheck | None = None
        self._wire_names: dict[str, str] | None = None
        self._task_support: TaskSupport | None = None

    def _resolve(self) -> None:
        # Racing threads compute the same values; the flag is set last so readers never see half a result.
        module = importlib.import_module(self.models_module)
        arguments_model = _load_class(module.__name__, self.arguments_class)
        result_model = (
            _load_class(module.__name__, self.result_class)
            if self.result_class is not None
            else None
        )
        result_field: str | None = None
        if self.unwrap_result and result_model is not None:
            for field_name, info in result_model.model_fields.items():
                if info.alias == "result" or (
                    info.alias is None and field_name == "result"
                ):
                    result_field = field_name
                    break
        self._arguments_model = arguments_model  # type: ignore[assignment]
        self._result_model = result_model
        self._result_field = result_field
        self._resolved = True

    @property
    def arguments_model(self) -> type[ArgsT]:
        """The pydantic model of the tool's arguments (imported on first use)."""
        if not self._resolved:
            self._resolve()
        model = self._arguments_model
        assert model is not None
        return model

    @property
    def result_model(self) -> type[BaseModel] | None:
        """The pydantic model of the structured result, or None when the tool has no output schema."""
        if not self._resolved:
            self._resolve()
        return self._result_model

    @property
    def result_field(self) -> str | None:
        """With `unwrap_result`: the Python name of the result model's field for the wire key "result"."""
        if not self._resolved:
            self._resolve()
        return self._result_field

    def arguments_check(self) -> SchemaCheck:
        """The listed input schema, compiled once: what decides whether arguments are sent."""
        check = self._arguments_check
        if check is None:
            from .arguments import SchemaCheck

            check = self._arguments_check = SchemaCheck(self.input_schema_view())
        return check

    def result_check(self) -> SchemaCheck:
        """The listed output schema, compiled once: the exact verdict on results (`with_options(check_results=True)`).

        A tool without an output schema has an empty one, which accepts every result.
        """
        check = self._result_check
        if check is None:
            from .arguments import SchemaCheck

            check = self._result_check = SchemaCheck(
                self.output_schema_view() or {}, key_noun="a key"
            )
        return check

    def wire_names(self) -> dict[str, str]:
        """The arguments model's Python field names -> the wire names they stand for (from its aliases)."""
        names = self._wire_names
        if names is None:
            model = self.arguments_model
            if (
                not model.__pydantic_complete__
            ):  # a field's type defined further down: aliases come with it
                model.model_rebuild()
            names = self._wire_names = {
                name: info.alias or name for name, info in model.model_fields.items()
            }
        return names

    def _listing(self) -> _JsonObject:
        item = self.snapshot.tool(self.name)
        if item is None:
            raise SnapshotError(
                f"{self.snapshot.path}: no tool {self.name!r} (the generated package is inconsistent)"
            )
        return item

    def input_schema_view(self) -> dict[str, Any]:
        """`input_schema` without the copy: the snapshot's own dict, never to be mutated."""
        schema = self._listing().get("inputSchema")
        return cast(dict[str, Any], schema) if isinstance(schema, dict) else {}

    def output_schema_view(self) -> dict[str, Any] | None:
        """`output_schema` without the copy: the snapshot's own dict, never to be mutated."""
        schema = self._listing().get("outputSchema")
        return cast(dict[str, Any], schema) if isinstance(schema, dict) else None

    @property
    def input_schema(self) -> dict[str, Any]:
        """The tool's `inputSchema` exactly as listed (a copy)."""
        schema = _optional_dict(self._listing(), "inputSchema")
        return schema if schema is not None else {}

    @property
    def output_schema(self) -> dict[str, Any] | None:
        """The tool's `outputSchema` exactly as listed (a copy), or None."""
        return _optional_dict(self._listing(), "outputSchema")

    @property
    def title(self) -> str | None:
        listing = self._listing()
        title = _optional_str(listing, "title")
        if title is None:
            annotations = listing.get("annotations")
            if isinstance(annotations, dict):
                title = _optional_str(cast("_JsonObject", annotations), "title")
        return title

    @property
    def description(self) -> str | None:
        if self._description_override is not None:
            return self._description_override
        return _optional_str(self._listing(), "description")

    @property
    def annotations(self) -> dict[str, Any] | None:
        """The tool's annotations as listed (wire keys such as `readOnlyHint`), or None."""
        return _optional_dict(self._listing(), "annotations")

    @property
    def task_support(self) -> TaskSupport:
        """Whether the tool runs as an MCP task (`execution.taskSupport` as listed): `"required"` (typed
        calls run it as a task), `"optional"` (typed calls run it plainly; `client.tasks.start()` makes a
        task) or `"forbidden"` (also when the listing says nothing). Read once."""
        support = self._task_support
        if support is None:
            execution: object = self._listing().get("execution")
            listed: object = (
                cast("_JsonObject", execution).get("taskSupport")
                if isinstance(execution, dict)
                else None
            )
            support = (
                "required"
                if listed == "required"
                else "optional" if listed == "optional" else "forbidden"
            )
            self._task_support = support
        return support

    @property
    def meta(self) -> dict[str, Any] | None:
        return _optional_dict(self._listing(), "_meta")

    @property
    def model_visible(self) -> bool:
        """MCP Apps: False for an app-only tool (its `_meta.ui.visibility` lacks `"model"`), which agent
        tools leave out; typed methods still call it."""
        return self.ui is None or self.ui.model_visible

    @property
    def icons(self) -> tuple[Icon, ...]:
        """The icons the server listed for the tool (`src`, `mimeType`, `sizes`, `theme`), if any."""
        return _icons(self._listing())

    def __repr__(self) -> str:
        result = (
            f"{self.models_module}.{self.result_class}"
            if self.result_class is not None
            else "ToolResult"
        )
        unwrap = ", unwrap_result=True" if self.unwrap_result else ""
        return (
            f"ToolSpec(name={self.name!r}, python_name={self.python_name!r}, "
            f"arguments={self.models_module}.{self.arguments_class}, result={result}{unwrap})"
        )


class _ListedSpec:
    """What a prompt's or resource's spec reads from its snapshot listing (not kept in the spec)."""

    __slots__ = ()

    def _listing(self) -> _JsonObject | None:
        raise NotImplementedError

    @property
    def description(self) -> str | None:
        return _optional_str(self._listing(), "description")

    @property
    def icons(self) -> tuple[Icon, ...]:
        """The icons the server listed for it (`src`, `mimeType`, `sizes`, `theme`), if any."""
        return _icons(self._listing())


class _ListedResourceSpec(_ListedSpec):
    """A resource's or template's spec: its MIME type is listed too."""

    __slots__ = ()

    @property
    def mime_type(self) -> str | None:
        return _optional_str(self._listing(), "mimeType")


class PromptSpec(_ListedSpec):
    """One prompt: wire name, Python name and its arguments as `(wire name, python name, required)`."""

    __slots__ = ("arguments", "name", "python_name", "snapshot")

    name: str
    python_name: str
    arguments: tuple[tuple[str, str, bool], ...]
    snapshot: SnapshotData | None

    def __init__(
        self,
        *,
        name: str,
        python_name: str,
        arguments: Sequence[tuple[str, str, bool]] = (),
        snapshot: SnapshotData | None = None,
    ) -> None:
        self.name = name
        self.python_name = python_name
        self.arguments = tuple(arguments)
        self.snapshot = snapshot

    def _listing(self) -> _JsonObject | None:
        return self.snapshot.prompt(self.name) if self.snapshot is not None else None

    @property
    def title(self) -> str | None:
        return _optional_str(self._listing(), "title")

    def __repr__(self) -> str:
        return f"PromptSpec(name={self.name!r}, arguments={[wire for wire, _, _ in self.arguments]!r})"


class TemplateSpec(_ListedResourceSpec):
    """One resource template: its RFC 6570 `uri_template` and variables as `(wire name, python name)`."""

    __slots__ = ("name", "python_name", "snapshot", "uri_template", "variables")

    name: str
    python_name: str
    uri_template: str
    variables: tuple[tuple[str, str], ...]
    snapshot: SnapshotData | None

    def __init__(
        self,
        *,
        name: str,
        python_name: str,
        uri_template: str,
        variables: Sequence[tuple[str, str]] = (),
        snapshot: SnapshotData | None = None,
    ) -> None:
        self.name = name
        self.python_name = python_name
        self.uri_template = uri_template
        self.variables = tuple(variables)
        self.snapshot = snapshot

    def _listing(self) -> _JsonObject | None:
        return (
            self.snapshot.template(self.uri_template)
            if self.snapshot is not None
            else None
        )

    def __repr__(self) -> str:
        return f"TemplateSpec(name={self.name!r}, uri_template={self.uri_template!r})"


class ResourceSpec(_ListedResourceSpec):
    """One static resource: its URI and names."""

    __slots__ = ("name", "python_name", "snapshot", "uri")

    uri: str
    name: str
    python_name: str
    snapshot: SnapshotData | None

    def __init__(
        self,
        *,
        uri: str,
        name: str,
        python_name: str,
        snapshot: SnapshotData | None = None,
    ) -> None:
        self.uri = uri
        self.name = name
        self.python_name = python_name
        self.snapshot = snapshot

    def _listing(self) -> _JsonObject | None:
        return self.snapshot.resource(self.uri) if self.snapshot is not None else None

    def __repr__(self) -> str:
        return f"ResourceSpec(uri={self.uri!r}, name={self.name!r})"
