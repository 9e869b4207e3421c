"""What the generator emits for a client, written by hand against the runtime's contract."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from mcp_codegen_runtime import (
    NOT_SENT,
    AsyncClientBase,
    AsyncPromptsBase,
    AsyncResourcesBase,
    NotSent,
    PromptResult,
    PromptSpec,
    ResourceResult,
    ResourceSpec,
    SnapshotData,
    SyncClientBase,
    SyncPromptsBase,
    SyncResourcesBase,
    TemplateSpec,
    ToolResult,
    ToolSpec,
)

if TYPE_CHECKING:
    from .models.add import AddArguments
    from .models.crash import CrashArguments
    from .models.describe import DescribeArguments
    from .models.env_value import EnvValueArguments
    from .models.fail import FailArguments
    from .models.get_weather import GetWeatherArguments, GetWeatherResult
    from .models.greet_plain import GreetPlainArguments
    from .models.search import SearchArguments
    from .models.slow import SlowArguments

SNAPSHOT = SnapshotData(Path(__file__).parent)
_MODELS = "fakepkg.models"

GET_WEATHER: ToolSpec[GetWeatherArguments, GetWeatherResult] = ToolSpec(
    name="get_weather",
    python_name="get_weather",
    models_module=f"{_MODELS}.get_weather",
    arguments_class="GetWeatherArguments",
    result_class="GetWeatherResult",
    unwrap_result=False,
    snapshot=SNAPSHOT,
)
ADD: ToolSpec[AddArguments, int] = ToolSpec(
    name="add",
    python_name="add",
    models_module=f"{_MODELS}.add",
    arguments_class="AddArguments",
    result_class="AddResult",
    unwrap_result=True,
    snapshot=SNAPSHOT,
)
DESCRIBE: ToolSpec[DescribeArguments, str] = ToolSpec(
    name="describe",
    python_name="describe",
    models_module=f"{_MODELS}.describe",
    arguments_class="DescribeArguments",
    result_class="DescribeResult",
    unwrap_result=True,
    snapshot=SNAPSHOT,
)
SEARCH: ToolSpec[SearchArguments, list[str]] = ToolSpec(
    name="search",
    python_name="search",
    models_module=f"{_MODELS}.search",
    arguments_class="SearchArguments",
    result_class="SearchResult",
    unwrap_result=True,
    snapshot=SNAPSHOT,
)
GREET_PLAIN: ToolSpec[GreetPlainArguments, ToolResult] = ToolSpec(
    name="greet_plain",
    python_name="greet_plain",
    models_module=f"{_MODELS}.greet_plain",
    arguments_class="GreetPlainArguments",
    result_class=None,
    unwrap_result=False,
    snapshot=SNAPSHOT,
)
FAIL: ToolSpec[FailArguments, str] = ToolSpec(
    name="fail",
    python_name="fail",
    models_module=f"{_MODELS}.fail",
    arguments_class="FailArguments",
    result_class="FailResult",
    unwrap_result=True,
    snapshot=SNAPSHOT,
)
SLOW: ToolSpec[SlowArguments, str] = ToolSpec(
    name="slow",
    python_name="slow",
    models_module=f"{_MODELS}.slow",
    arguments_class="SlowArguments",
    result_class="SlowResult",
    unwrap_result=True,
    snapshot=SNAPSHOT,
)
ENV_VALUE: ToolSpec[EnvValueArguments, str | None] = ToolSpec(
    name="env_value",
    python_name="env_value",
    models_module=f"{_MODELS}.env_value",
    arguments_class="EnvValueArguments",
    result_class="EnvValueResult",
    unwrap_result=True,
    snapshot=SNAPSHOT,
)
CRASH: ToolSpec[CrashArguments, str] = ToolSpec(
    name="crash",
    python_name="crash",
    models_module=f"{_MODELS}.crash",
    arguments_class="CrashArguments",
    result_class="CrashResult",
    unwrap_result=True,
    snapshot=SNAPSHOT,
)

TOOLS: Mapping[str, ToolSpec[Any, Any]] = {
    spec.name: spec for spec in (GET_WEATHER, ADD, DESCRIBE, SEARCH, GREET_PLAIN, FAIL, SLOW, ENV_VALUE, CRASH)
}

REVIEW = PromptSpec(
    name="review",
    python_name="review",
    arguments=(("code", "code", True), ("style", "style", False)),
    snapshot=SNAPSHOT,
)
APP_CONFIG = ResourceSpec(uri="config://app", name="app_config", python_name="app_config", snapshot=SNAPSHOT)
USER_PROFILE = TemplateSpec(
    name="user_profile",
    python_name="user_profile",
    uri_template="users://{user_id}/profile",
    variables=(("user_id", "user_id"),),
    snapshot=SNAPSHOT,
)

LAUNCH: Mapping[str, Any] | None = None


class AsyncPrompts(AsyncPromptsBase):
    async def review(self, *, code: str, style: str | NotSent = NOT_SENT) -> PromptResult:
        """Review some code."""
        return await self._get(REVIEW, {"code": code, "style": style})


class AsyncResources(AsyncResourcesBase):
    async def app_config(self) -> ResourceResult:
        """The app configuration."""
        return await self._read(APP_CONFIG)

    async def user_profile(self, *, user_id: str) -> ResourceResult:
        """A user's profile."""
        return await self._read_template(USER_PROFILE, {"user_id": user_id})


class AsyncClient(AsyncClientBase):
    """Async client for rt-demo."""

    _tools: ClassVar[Mapping[str, ToolSpec[Any, Any]]] = TOOLS
    _launch: ClassVar[Mapping[str, Any] | None] = LAUNCH

    @property
    def prompts(self) -> AsyncPrompts:
        return AsyncPrompts(self)

    @property
    def resources(self) -> AsyncResources:
        return AsyncResources(self)

    async def get_weather(
        self, *, city: str, units: Literal["c", "f"] | None | NotSent = NOT_SENT, days: int | None | NotSent = NOT_SENT
    ) -> GetWeatherResult:
        """Current weather for a city."""
        return await self._call_tool(GET_WEATHER, {"city": city, "units": units, "days": days})

    async def add(self, *, a: int, b: int) -> int:
        """Add two integers."""
        return await self._call_tool(ADD, {"a": a, "b": b})

    async def describe(self, *, b: int | None | NotSent = NOT_SENT) -> str:
        return await self._call_tool(DESCRIBE, {"b": b})

    async def search(self, *, query: str, max_results: int | None | NotSent = NOT_SENT) -> list[str]:
        return await self._call_tool(SEARCH, {"query": query, "max_results": max_results})

    async def greet_plain(self, *, name: str) -> ToolResult:
        return await self._call_tool(GREET_PLAIN, {"name": name})

    async def fail(self, *, message: str) -> str:
        return await self._call_tool(FAIL, {"message": message})

    async def slow(self, *, seconds: float) -> str:
        return await self._call_tool(SLOW, {"seconds": seconds})

    async def env_value(self, *, name: str) -> str | None:
        return await self._call_tool(ENV_VALUE, {"name": name})

    async def crash(self) -> str:
        return await self._call_tool(CRASH, {})


class Prompts(SyncPromptsBase):
    def review(self, *, code: str, style: str | NotSent = NOT_SENT) -> PromptResult:
        """Review some code."""
        return self._get(REVIEW, {"code": code, "style": style})


class Resources(SyncResourcesBase):
    def app_config(self) -> ResourceResult:
        return self._read(APP_CONFIG)

    def user_profile(self, *, user_id: str) -> ResourceResult:
        return self._read_template(USER_PROFILE, {"user_id": user_id})


class Client(SyncClientBase[AsyncClient]):
    """Blocking client for rt-demo."""

    _async_class: ClassVar[type[AsyncClient]] = AsyncClient

    @property
    def prompts(self) -> Prompts:
        return Prompts(self)

    @property
    def resources(self) -> Resources:
        return Resources(self)

    def get_weather(
        self, *, city: str, units: Literal["c", "f"] | None | NotSent = NOT_SENT, days: int | None | NotSent = NOT_SENT
    ) -> GetWeatherResult:
        """Current weather for a city."""
        return self._run(self._async.get_weather, city=city, units=units, days=days)

    def add(self, *, a: int, b: int) -> int:
        return self._run(self._async.add, a=a, b=b)

    def describe(self, *, b: int | None | NotSent = NOT_SENT) -> str:
        return self._run(self._async.describe, b=b)

    def fail(self, *, message: str) -> str:
        return self._run(self._async.fail, message=message)

    def slow(self, *, seconds: float) -> str:
        return self._run(self._async.slow, seconds=seconds)

    def crash(self) -> str:
        return self._run(self._async.crash)
