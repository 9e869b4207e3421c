"""The intermediate representation: everything the templates see, with every Python name decided.

Built from a snapshot by `build_ir`, completed with model facts by `pipeline`; templates read
only these frozen objects, never raw server JSON. Server text appears here only as data
(`description`), which the templates render through escaping filters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: The keyword of a tool's method taking the arguments its schema allows beyond the listed ones; no parameter
#: is given this name.
EXTRA_ARGUMENTS = "extra_arguments"


@dataclass(frozen=True)
class Parameter:
    python_name: str
    wire_name: str
    type_source: str
    required: bool
    description: str | None
    #: The schema's `default`, as a Python literal (server data: only ever shown inside docstrings).
    default: str | None = None


@dataclass(frozen=True)
class Tool:
    wire_name: str
    #: The method's name on the client, and the name of its spec in `specs`.
    python_name: str
    #: The `models/<module>.py` holding this tool's arguments and result classes.
    models_module: str
    arguments_class: str
    result_class: str | None
    #: Return the `result` field of the SDK servers' `{"result": value}` wrapping.
    unwrap_result: bool
    #: The method's return type as Python source.
    return_type: str
    #: Permissive arguments: the method takes `**arguments` instead of typed keywords.
    permissive: bool
    #: The schema says which other keys it takes: the method takes them as `extra_arguments`.
    extra_arguments: bool
    parameters: tuple[Parameter, ...]
    title: str | None
    description: str | None
    #: Set when the description was replaced at generation, so the spec carries it.
    description_override: str | None
    read_only: bool | None
    #: The listed `execution.taskSupport` when the tool may run as an MCP task ("optional", "required"), else None.
    task_support: str | None
    #: The tool's method in the generated `client.tasks` namespace (set with `task_support`).
    task_method: str | None
    #: Hash of the listed input and output schemas, for the client's connect-time drift guard.
    fingerprint: str
    #: A call that may have run is safe to send again (`readOnlyHint` or `idempotentHint`, the runtime's rule):
    #: the Temporal activity's retry policy.
    repeatable: bool

    #: MCP Apps: the `ui://` resource named by the tool's `_meta.ui` (or the deprecated flat key), else None.
    ui_resource_uri: str | None = None
    #: MCP Apps: the listed `_meta.ui.visibility` when it is not the default ("model" and "app"), else None.
    ui_visibility: tuple[str, ...] | None = None
    #: The listed `destructiveHint`, None when the tool gives none.
    destructive: bool | None = None
    #: The result model was made from recorded answers (`--results-from`): the runtime parses results into it.
    observed: bool = False

    @property
    def app_only(self) -> bool:
        """MCP Apps: only the tool's UI calls it (its visibility lacks "model"): kept from models and agent skills."""
        return self.ui_visibility is not None and "model" not in self.ui_visibility


@dataclass(frozen=True)
class PromptArgument:
    python_name: str
    wire_name: str
    required: bool
    description: str | None


@dataclass(frozen=True)
class Prompt:
    wire_name: str
    python_name: str
    arguments: tuple[PromptArgument, ...]
    title: str | None
    description: str | None


@dataclass(frozen=True)
class Resource:
    uri: str
    name: str
    python_name: str
    mime_type: str | None
    description: str | None


@dataclass(frozen=True)
class TemplateVariable:
    python_name: str
    wire_name: str


@dataclass(frozen=True)
class ResourceTemplate:
    name: str
    uri_template: str
    python_name: str
    variables: tuple[TemplateVariable, ...]
    mime_type: str | None
    description: str | None


@dataclass(frozen=True)
class ModelField:
    """One field of a model class a method takes, for the README."""

    python_name: str
    wire_name: str
    type_source: str
    required: bool
    #: The default as the model declares it (Python source), or None.
    default: str | None
    description: str | None


@dataclass(frozen=True)
class Model:
    """A model class the user builds to call a method (a nested argument object)."""

    name: str
    #: The `models/<module>.py` defining it.
    module: str
    fields: tuple[ModelField, ...]


@dataclass(frozen=True)
class Skill:
    """A skill the server offered (MCP Skills extension): what the client's `skills` names and the drift check compares."""

    name: str
    description: str
    #: Hash of its frontmatter and manifest (`calls.skills.skill_fingerprint`).
    fingerprint: str
    #: The paths of its files (`SKILL.md` included), or empty for a dynamic manifest.
    files: tuple[str, ...]


@dataclass(frozen=True)
class ClientSpec:
    package_name: str
    generator_version: str
    server_name: str
    server_version: str | None
    server_title: str | None
    instructions: str | None
    launch: dict[str, Any] | None
    tools: tuple[Tool, ...]
    prompts: tuple[Prompt, ...]
    resources: tuple[Resource, ...]
    templates: tuple[ResourceTemplate, ...]
    #: `from X import Y` lines for the names of the signatures that are not model classes (`Literal`): imported
    #: for real, so `typing.get_type_hints()` resolves them (model classes are reached through `models.`).
    type_imports: tuple[str, ...]
    #: Model classes named in the methods' signatures, re-exported (lazily) by the package: (class, module).
    signature_models: tuple[tuple[str, str], ...] = ()
    #: The model classes the methods' arguments are built from, nested ones included, with their fields.
    argument_models: tuple[Model, ...] = ()
    #: The protocol version negotiated when the snapshot was taken.
    protocol_version: str | None = None
    #: The server's skills by name; None when it did not offer the Skills extension.
    skills: tuple[Skill, ...] | None = None
    #: The package's own name for its server (its import name; a config's server key names a subpackage):
    #: Temporal activities are named with it, so a server reporting another `serverInfo.name` renames none.
    server_key: str = ""
    #: The listings the snapshot lacks, as (method, why): ("resources/list", "failed"), ... (`Snapshot.not_listed`).
    not_listed: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class UmbrellaMember:
    """One server's subpackage in an umbrella package."""

    #: The server's name in the config (the toolkit's key and the `mcp__<server>__` namespace).
    server_key: str
    #: The subpackage's import name.
    package_name: str
    #: The server's own name and version, as it reported them (untrusted text).
    server_label: str
    tools: int
    resources: int
    prompts: int


@dataclass(frozen=True)
class UmbrellaSpec:
    package_name: str
    generator_version: str
    members: tuple[UmbrellaMember, ...]
