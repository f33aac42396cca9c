"""The SDK's server with its own tool-call failures (an unknown tool, arguments that do not fit the schema)
worded as stringsh's refusals: `ERROR(CODE): message` and a hint, as an `isError` result. Argument values are
never echoed back (they may be huge, or secret)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from stringsh.dialects.mcp.calls import Calls, error_result
from stringsh.dialects.mcp.logging_capability import reported
from stringsh.errors import StringError
from stringsh.protocol.jsonbounds import SURROGATE


def _field_errors(exc: ValidationError) -> str:
    """`edits.0.oldText: Field required; head: Input should be a valid integer` (no input values)."""
    shown = []
    for error in exc.errors()[:5]:
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        shown.append(f"{where}: {error['msg']}")
    more = len(exc.errors()) - len(shown)
    return "; ".join(shown) + (f" (and {more} more)" if more > 0 else "")


class CodedServer(MCPServer):
    #: The server's calls on the workspace (set by build_server).
    calls: Calls

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
                        ) -> CallToolResult | InputRequiredResult:
        """The call's result; its refusal and the warnings logged while serving it also go to the client as log
        messages (logging_capability.py)."""
        async with reported(context, name) as answered:
            result = await self._coded_call(name, arguments, context)
            if isinstance(result, CallToolResult):
                answered.append(result)
        return result

    async def _coded_call(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None
                          ) -> CallToolResult | InputRequiredResult:
        try:
            return encodable(await super().call_tool(name, arguments, context))
        except UnexpectedToolError as exc:
            return error_result(StringError("INTERNAL_ERROR", f"{name} failed inside stringsh",
                                            f"The session goes on ({type(exc.__cause__).__name__})."))
        except ToolError as exc:
            if not any(tool.name == name for tool in await self.list_tools()):
                return error_result(StringError("COMMAND_UNSUPPORTED", f"Unknown tool: {name[:100]}",
                                                "List the tools (tools/list) and call one of them."))
            if isinstance(exc.__cause__, ValidationError):
                return error_result(StringError("INVALID_PAYLOAD", f"{name}: {_field_errors(exc.__cause__)}",
                                                "Give the arguments the tool's input schema asks for (tools/list)."))
            return error_result(StringError("INVALID_PAYLOAD", f"{name}: {str(exc)[:300]}",
                                            "Give the arguments the tool's input schema asks for (tools/list)."))


def shown_surrogate(char: str) -> str:
    """A lone surrogate as text: a byte that was not UTF-8 (kept by `surrogateescape`) as `\\xe9`, as rg and git show
    one, any other as `\\ud800`."""
    code = ord(char)
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def encodable(result: CallToolResult | InputRequiredResult) -> CallToolResult | InputRequiredResult:
    """The result with every lone surrogate in its text shown escaped: the SDK's serializer cannot write one and
    would end the call without a reply (over HTTP) or the process (on stdio). Text that holds none is untouched."""
    for item in getattr(result, "content", None) or ():
        text = getattr(item, "text", None)
        if isinstance(text, str) and SURROGATE.search(text):
            item.text = SURROGATE.sub(lambda m: shown_surrogate(m.group(0)), text)
    return result
