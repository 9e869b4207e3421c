"""Python names for wire names: valid, unreserved, collision-free, and the same on every run.

Every identifier the generated code uses for something a server named is decided here, once, by one rule:
a name declared in a generated scope must not change the meaning of an annotation evaluated in that scope.
A wire name that is already such a name keeps it (`kept_as_field_name`); any other is renamed through a
`NameRegistry` per namespace, the wire name staying the alias (pydantic models, parameters), or stays a
string key where a dict keeps it (`identifier_key`: code mode's `TypedDict` stubs use the functional form).
Reserved names are read from the classes a name would sit in (`class_members`), never kept as a list.
"""

from __future__ import annotations

import builtins
import keyword
from collections.abc import Callable, Collection, Iterable
from functools import cache

from mcp_codegen.casing import snake_case
from mcp_codegen.generate.class_members import class_members

#: The builtins generated annotations are written with: a model field (so a parameter) or a TypedDict key
#: named like one would shadow it for the annotations of its class (mypy: "Variable ... is not valid as a type").
ANNOTATION_BUILTINS: frozenset[str] = frozenset(
    {"str", "int", "float", "bool", "list", "dict", "tuple", "set", "frozenset", "bytes"}
)


@cache
def reserved_identifiers() -> frozenset[str]:
    """Names a method must never take: keywords (hard and soft), builtins (a method named `list` shadows the
    builtin in every annotation of its class), and the names pydantic reserves."""
    pydantic = class_members().pydantic_model
    return frozenset({*keyword.kwlist, *keyword.softkwlist, *dir(builtins), "self", "cls", *pydantic})


@cache
def reserved_parameters() -> frozenset[str]:
    """Names a keyword parameter (of a tool, prompt or template) and a model field must never take: keywords,
    `self` (every generated method's first parameter), `_`, the builtins of `ANNOTATION_BUILTINS` and the
    names pydantic reserves. Any other builtin is a fine name: no generated method body or model calls one,
    so `range` stays `range`."""
    pydantic = class_members().pydantic_model
    return frozenset({*keyword.kwlist, "_", "self", *ANNOTATION_BUILTINS, *pydantic})


def kept_as_field_name(wire: str) -> bool:
    """Whether `wire` is used as it is for a parameter or a model field: a snake_case ASCII identifier that is
    no keyword, no name an annotation may use (`list`, `str`...), not pydantic's (`model_*`, `_*`, its
    methods). Every other name is renamed, the wire name kept as its alias."""
    return (
        wire.isascii()
        and wire.isidentifier()
        and snake_case(wire, fallback="field") == wire
        and not wire.startswith(("_", "model_"))
        and wire not in reserved_parameters()
    )


def identifier_key(wire: str, annotation_names: Collection[str]) -> bool:
    """Whether a `TypedDict` key `wire` may be written as a class-body name, given the names the class's
    annotations refer to (else the functional form keeps it a string key): an ASCII identifier that is no
    keyword and shadows none of them (`list: ...` before `columns: list[...]` would make `list[...]` a
    subscript of the key's type)."""
    return (
        wire.isascii()
        and wire.isidentifier()
        and not keyword.iskeyword(wire)
        and not wire.startswith("_")  # `__annotations__`, `__doc__`...: attributes every class already has
        and wire not in annotation_names
        and wire not in ANNOTATION_BUILTINS
    )


def usable_key(wire: str) -> bool:
    """Whether a type checker accepts `wire` as a `TypedDict` key at all (pyright refuses the empty string)."""
    return wire != ""


class NameRegistry:
    """Hands out unique names within one namespace (a class's methods, a method's parameters...).

    Wire names are claimed in sorted order and a wire name that is already a valid, unreserved name
    claims itself first, so `get_sum` keeps `get_sum` and `get-sum` becomes `get_sum_2`, whatever order
    the server lists them in.
    """

    def __init__(
        self, reserved: Iterable[str] = (), *, reserved_prefix: str | None = None, number_separator: str = "_"
    ) -> None:
        self._reserved = frozenset(reserved)
        #: Pydantic owns the `model_` prefix on models: fields that would start with it get `field_` before it.
        self._reserved_prefix = reserved_prefix
        self._number_separator = number_separator
        self._taken: dict[str, str] = {}

    def is_free(self, name: str) -> bool:
        return name not in self._taken and name not in self._reserved

    def assign_all(self, wire_names: Iterable[str], convert: Callable[[str], str]) -> dict[str, str]:
        """Map every distinct wire name to a unique Python name."""
        ordered = sorted(set(wire_names))
        candidates = {wire: self._unreserved(convert(wire)) for wire in ordered}
        assigned: dict[str, str] = {}
        # Exact matches first: a wire name that needs no conversion is never the one renamed.
        for wire in ordered:
            if candidates[wire] == wire and self.is_free(wire):
                assigned[wire] = self._claim(wire, wire)
        for wire in ordered:
            if wire not in assigned:
                assigned[wire] = self._claim(self._first_free(candidates[wire]), wire)
        return assigned

    def hold(self, names: Iterable[str]) -> None:
        """Take `names` as they are, for what already holds them outside this registry."""
        for name in names:
            self._taken.setdefault(name, name)

    def claimed_by(self, name: str) -> str | None:
        return self._taken.get(name)

    def _unreserved(self, name: str) -> str:
        if self._reserved_prefix is not None and name.startswith(self._reserved_prefix):
            name = f"field_{name}"
        while name in self._reserved:
            name = f"{name}_"
        return name

    def _first_free(self, name: str) -> str:
        if self.is_free(name):
            return name
        stem = name.rstrip("_") or name
        number = 2
        while not self.is_free(f"{stem}{self._number_separator}{number}"):
            number += 1
        return f"{stem}{self._number_separator}{number}"

    def _claim(self, name: str, wire: str) -> str:
        self._taken[name] = wire
        return name


def pascal_from_snake(snake: str) -> str:
    """`get_weather_2` -> `GetWeather2`: letters and digits only, the form datamodel-code-generator keeps.

    Not one-to-one (`get_weather2` gives the same): `class_prefixes` keeps the prefixes apart.
    """
    return "".join(part[:1].upper() + part[1:] for part in snake.split("_")) or "Item"


def class_prefixes(method_names: Iterable[str], *, taken: Iterable[str] = ()) -> dict[str, str]:
    """Method name -> a unique PascalCase prefix for its `<prefix>Arguments` and `<prefix>Result` classes.

    In sorted order `get_sum2` comes before `get_sum_2`, so it keeps `GetSum2` and `get_sum_2` gets `GetSum22`.
    No class is named as one in `taken`: with `ToolResult` taken, `tool` gets `Tool2`.
    """
    registry = NameRegistry(number_separator="")
    suffixes = ("Arguments", "Result")
    registry.hold(name.removesuffix(suffix) for name in taken for suffix in suffixes if name.endswith(suffix))
    return registry.assign_all(method_names, pascal_from_snake)


def suffixed_class_names(python_names: Iterable[str], suffix: str, *, taken: Iterable[str] = ()) -> dict[str, str]:
    """Python name -> a unique `<Pascal><suffix>` class name, none of them in `taken`.

    The testing module's `PlanTripPromptArguments`-style classes use it, with the models' classes taken.
    """
    registry = NameRegistry(number_separator="")
    registry.hold(taken)
    return registry.assign_all(python_names, lambda name: pascal_from_snake(name) + suffix)


class ClassNames:
    """The model class names taken across a package's tools: a name asked for again gets a number (`Item2`).

    Tools ask in sorted order, so a tool's classes depend on the tools before it only through the answers
    it got; `replay` checks a tool's recorded answers (the prepared-schemas cache) without taking any name
    unless they all still hold.
    """

    def __init__(self, taken: Iterable[str]) -> None:
        self.taken = set(taken)

    def claim(self, name: str) -> str:
        """`name`, or the first of `name2`, `name3`... not taken; taken from now on."""
        granted = self._first_free(name)
        self.taken.add(granted)
        return granted

    def replay(self, claims: Iterable[tuple[str, str]]) -> bool:
        """Take every granted name of `claims` ((asked, granted) in the order asked) if `claim` would grant
        each the same now; else take nothing (so a fresh preparation gets exactly what it would have)."""
        pending: set[str] = set()
        for asked, granted in claims:
            if self._first_free(asked, pending) != granted:
                return False
            pending.add(granted)
        self.taken |= pending
        return True

    def _first_free(self, name: str, pending: Collection[str] = frozenset()) -> str:
        candidate, number = name, 2
        while candidate in self.taken or candidate in pending:
            candidate, number = f"{name}{number}", number + 1
        return candidate
