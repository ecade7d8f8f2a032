"""The reference pages, generated from the code each time the site is built.

A page asks for a generated part with a line of its own, ``<!-- reference: NAME -->``; the hook
replaces it with what :data:`GENERATORS` makes of the code as it is now: the command line from
its argparse parser, the finding codes from their catalogue, the configuration keys and the
environment variables from :mod:`citeaudit.config`, the MCP tools from the server's own
``tools/list`` answer, and the HTTP API from ``docs/openapi.json``. Nothing generated is kept in
the repository, so nothing generated can drift. A marker no generator knows, a generator no page
asks for, or a setting nothing describes fails the build.

Every function here is also called by the tests (``tests/docs/``), which hold the generated
text to the code: every command, flag, code, setting and variable has its entry.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import html
import inspect
import io
import json
import re
import tempfile
import tokenize
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

__all__ = [
    "GENERATORS",
    "cli_commands",
    "config_rows",
    "env_rows",
    "mcp_tools",
    "on_page_markdown",
    "on_post_build",
    "on_pre_build",
    "render",
]

ROOT = Path(__file__).resolve().parents[2]
OPENAPI = ROOT / "docs" / "openapi.json"
MARKER = re.compile(r"^<!-- reference: ([a-z-]+) -->$", re.M)

# --- Markdown helpers ----------------------------------------------------------------------------

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_ESCAPE = re.compile(r"([\\*_\[\]|])")


def prose(text: str) -> str:
    """Text from the code as one line of Markdown: its code spans kept, everything else literal."""
    out = []
    last = 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_plain(text[last : m.start()]))
        out.append(code(m.group(2).strip()))
        last = m.end()
    out.append(_plain(text[last:]))
    return " ".join("".join(out).split())


def _plain(text: str) -> str:
    return _ESCAPE.sub(r"\\\1", html.escape(text, quote=False))


def code(text: str) -> str:
    """``text`` as a code span, whatever backticks it holds."""
    text = " ".join(text.split())
    if "`" not in text:
        return f"`{text}`"
    return f"`` {text} ``"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell or "—" for cell in row) + " |" for row in rows]
    return lines


# --- The extras ----------------------------------------------------------------------------------

PYPROJECT = ROOT / "pyproject.toml"


def extras() -> list[tuple[str, str, list[str]]]:
    """(extra, what it is for, its requirements) from ``pyproject.toml``, the comment above each
    extra being what it is for; ``dev`` (the tools that build and test citeaudit) last."""
    import tomllib

    text = PYPROJECT.read_text("utf-8")
    declared = tomllib.loads(text)["project"]["optional-dependencies"]
    section = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    found = []
    comment: list[str] = []
    for line in section.splitlines():
        stripped = line.strip()
        m = re.match(r"^([A-Za-z0-9_-]+) = \[", line)
        if stripped.startswith("#"):
            comment.append(stripped.lstrip("#").strip())
        elif m:
            name = m.group(1)
            about = " ".join(comment) or ("the tools that build and test citeaudit" if name == "dev" else "")
            if not about:
                raise PluginError(f"pyproject.toml: the extra {name!r} has no comment saying what it is for")
            found.append((name, about, list(declared[name])))
            comment = []
        else:
            comment = []
    if {name for name, _, _ in found} != set(declared):
        raise PluginError("pyproject.toml: the extras could not all be read")
    return found


def render_extras() -> list[str]:
    rows = []
    for name, about, requirements in extras():
        extra_sets = [r for r in requirements if r.startswith("citeaudit[")]
        if name == "dev":
            installs = (
                ", ".join(code(r) for r in extra_sets) + f" and {len(requirements) - len(extra_sets)} tools"
            )
        else:
            installs = ", ".join(code(r) for r in requirements) or "nothing beyond the core"
        rows.append((code(name), prose(about), installs))
    return table(("extra", "for", "installs"), rows)


# --- The command line ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Command:
    """One command of the parser: ``citeaudit cache refresh`` is ("cache", "refresh")."""

    path: tuple[str, ...]
    parser: argparse.ArgumentParser
    summary: str

    @property
    def name(self) -> str:
        return " ".join(("citeaudit", *self.path))

    @property
    def anchor(self) -> str:
        return "-".join(("citeaudit", *self.path))

    def subcommands(self) -> list[Command]:
        found = []
        for action in self.parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                helps = {a.dest: a.help or "" for a in action._choices_actions}
                for name, sub in action.choices.items():
                    found.append(Command((*self.path, name), sub, helps.get(name, "")))
        return found

    def arguments(self) -> list[argparse.Action]:
        return [
            a
            for a in self.parser._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
        ]


def cli_commands() -> list[Command]:
    """Every command and subcommand of ``citeaudit``, depth first, in the parser's order."""
    from citeaudit.cli import build_parser

    def walk(command: Command) -> Iterator[Command]:
        yield command
        for sub in command.subcommands():
            yield from walk(sub)

    return list(walk(Command((), build_parser(), "")))


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(prog=parser.prog, width=100)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    formatter = parser._get_formatter()
    return formatter._expand_help(action)


def _default(action: argparse.Action) -> str:
    value = action.default
    if value is None or value == argparse.SUPPRESS or isinstance(value, bool) or value in ([], ()):
        return ""
    return code(str(value))


def _argument(action: argparse.Action) -> str:
    if not action.option_strings:
        return code(str(action.metavar or action.dest).upper())
    metavar = ""
    if action.nargs != 0:
        metavar = str(action.metavar or action.dest.upper())
        if action.choices is not None and action.metavar is None:
            metavar = "{" + ",".join(str(c) for c in action.choices) + "}"
    return ", ".join(code(f"{flag} {metavar}".strip()) for flag in action.option_strings)


def render_cli() -> list[str]:
    lines: list[str] = []
    commands = cli_commands()
    top = commands[0]
    lines += [
        f"`citeaudit` has {sum(1 for c in commands if c.path and not c.subcommands())} commands. "
        "Each takes `--help`; `citeaudit --version` prints the version.",
        "",
    ]
    lines += table(
        ("command", "what it does"),
        [(f"[{code(c.name)}](#{c.anchor})", prose(c.summary)) for c in commands if len(c.path) == 1],
    )
    lines += ["", "```text", _usage(top.parser), "```", ""]
    for command in commands[1:]:
        level = "#" * (len(command.path) + 1)
        lines += [f"{level} {command.name} {{#{command.anchor}}}", ""]
        if command.summary:
            lines += [prose(command.summary[:1].upper() + command.summary[1:]) + ".", ""]
        if command.parser.description:
            lines += [prose(command.parser.description), ""]
        subs = command.subcommands()
        if subs:
            lines += table(
                ("command", "what it does"),
                [(f"[{code(s.name)}](#{s.anchor})", prose(s.summary)) for s in subs],
            )
            lines.append("")
            continue
        lines += ["```text", _usage(command.parser), "```", ""]
        rows = [
            (_argument(a), _default(a), prose(_help(command.parser, a)))
            for a in command.arguments()
            if a.help != argparse.SUPPRESS
        ]
        if rows:
            lines += table(("argument", "default", "meaning"), rows)
            lines.append("")
        if command.parser.epilog:
            lines += [prose(command.parser.epilog), ""]
    return lines


# --- Finding codes -------------------------------------------------------------------------------


def render_codes(explained: Mapping[str, list[tuple[str, str]]]) -> list[str]:
    """The catalogue as a table; ``explained``: code → (title, page) of the guides that name it."""
    from citeaudit.checks.codes import CATALOGUE
    from citeaudit.model import Outcome

    counts = {o: sum(1 for c in CATALOGUE.values() if c.outcome is o) for o in Outcome}
    lines = [
        f"{len(CATALOGUE)} codes: "
        + ", ".join(f"{n} {o.value.replace('_', ' ')}" for o, n in counts.items())
        + ". The severity is the default one; the status is which of the outcomes the code is.",
        "",
    ]
    rows = []
    for info in CATALOGUE.values():
        pages = ", ".join(f"[{title}]({page})" for title, page in explained.get(info.code, []))
        rows.append(
            (
                f"{code(info.code)}{{#{info.code.lower()}}}",
                info.severity.value,
                info.outcome.value.replace("_", " "),
                prose(info.summary),
                pages,
            )
        )
    return [*lines, *table(("code", "severity", "status", "meaning", "explained in"), rows)]


# --- Configuration keys and environment variables -------------------------------------------------

# Settings the code describes neither with a flag's help nor with a comment beside the field. A
# setting with no description anywhere fails the build: give its field a comment in config.py.
NOTES = {
    "max_input_bytes": "the largest claims or corpus file read (also each line of a batch input), in bytes",
    "max_depth": "the deepest JSON nesting read, in levels",
    "store_max_sources": "the most sources one scope of the evidence store holds",
    "store_max_text_bytes": "the largest text of one revision in the evidence store, in bytes",
    "max_document_bytes": "the largest PDF, HTML or text file given to `sources add` or `snapshot`, "
    "and each text file of a corpus directory, in bytes",
    "max_page_bytes": "the largest body of a fetched web page read, decompressed, in bytes",
    "host_delay_ms": "milliseconds between two requests to one web host (0: none; a longer `Crawl-delay` "
    "of the site, up to 30 s, is honoured)",
    "severity": 'a table `CODE = "error|warning|info"`: a code\'s severity, changed; never removed',
    "CITEAUDIT_LLM_API_KEY": "the API key the `llm` judge sends to its endpoint, if any",
}


def _field_comments(cls: type) -> dict[str, str]:
    """``name: type = default  # comment`` → {name: comment}, read from the class's source."""
    comments: dict[str, str] = {}
    source = inspect.getsource(cls)
    pending: str | None = None
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and token.start[1] == 4 and pending is None:
            pending = token.string
        elif token.type == tokenize.COMMENT and pending is not None:
            comments[pending] = token.string.lstrip("#").strip()
        elif token.type == tokenize.NEWLINE:
            pending = None
    return comments


def _flags_by_dest() -> dict[str, tuple[str, str]]:
    """Setting → (flag, help) from every command's options, ``check``'s first."""
    found: dict[str, tuple[str, str]] = {}
    commands = sorted(cli_commands()[1:], key=lambda c: c.path != ("check",))
    for command in commands:
        for action in command.arguments():
            if action.option_strings and action.dest not in found:
                found[action.dest] = (action.option_strings[-1], _help(command.parser, action))
    return found


_BRACKET = re.compile(r"\s*\[[^\[\]]*(?:\[[^\]]*\][^\[\]]*)*\]$")  # the help's "[ENV; default]"


def _describe(name: str, flags: Mapping[str, tuple[str, str]], comments: Mapping[str, str]) -> str:
    if name in flags and flags[name][1]:
        return _BRACKET.sub("", flags[name][1])
    if name in NOTES:
        return NOTES[name]
    if name in comments:
        return comments[name]
    raise PluginError(f"the setting {name!r} is described nowhere: give its field a comment in config.py")


def _shown_default(field: dataclasses.Field[Any]) -> str:
    from citeaudit.parallel import available_cpus

    if field.default_factory is available_cpus:
        return "the number of CPUs"
    if field.default is not dataclasses.MISSING:
        value = field.default
    elif field.default_factory is not dataclasses.MISSING:
        value = field.default_factory()
    else:
        return ""
    if value is None or value in ("", (), {}):
        return ""
    if isinstance(value, bool):
        return code(str(value).lower())
    if isinstance(value, tuple):
        return code(json.dumps([str(v) for v in value]))
    if isinstance(value, int):
        return code(str(value)) + (f" ({_size(value)})" if value >= 1 << 20 else "")
    return code(json.dumps(str(value)))


_TOML_TYPES = {
    "Path": "path",
    "str": "string",
    "int": "integer",
    "bool": "boolean",
    "tuple[Path, ...]": "list of paths",
    "tuple[str, ...]": "list of strings",
    "Mapping[str, str]": "table",
}


def toml_type(annotation: str) -> str:
    """A field's annotation as what the configuration file takes."""
    optional = annotation.endswith(" | None")
    annotation = annotation.removesuffix(" | None")
    literal = re.fullmatch(r"Literal\[(.*)\]", annotation)
    if literal:
        return "string: " + ", ".join(v.strip().strip("'\"") for v in literal.group(1).split(","))
    return _TOML_TYPES.get(annotation, annotation) + (" (optional)" if optional else "")


def _size(n: int) -> str:
    return f"{n // (1 << 20)} MiB" if n % (1 << 20) == 0 else f"{n} bytes"


def config_rows() -> list[tuple[str, str, str, str, str, str]]:
    """(key in the file, type, default, variable, flag, meaning) for every setting."""
    from citeaudit.config import ENV_VARS, Config
    from citeaudit.policy import Policy

    flags = _flags_by_dest()
    comments = _field_comments(Config)
    rows = []
    for field in dataclasses.fields(Config):
        name = field.name
        if name == "origin":  # where the settings came from, for messages; not a setting
            continue
        if name == "policy":
            policy_comments = _field_comments(Policy)
            for sub in dataclasses.fields(Policy):
                rows.append(
                    (
                        f"[policy] {sub.name}",
                        toml_type(str(sub.type)),
                        _shown_default(sub),
                        "",
                        "",
                        _describe(sub.name, {}, policy_comments),
                    )
                )
            continue
        key = f"[search] {name}" if name in ("mirrors", "indexes") else name
        key = "[severity]" if name == "severity" else key
        flag = flags.get(name, ("", ""))[0]
        rows.append(
            (
                key,
                toml_type(str(field.type)),
                _shown_default(field),
                ENV_VARS.get(name, ""),
                flag,
                _describe(name, flags, comments),
            )
        )
    return rows


def env_rows() -> list[tuple[str, str, str]]:
    """(variable, setting or what reads it, meaning) for every ``CITEAUDIT_*`` variable."""
    from citeaudit.config import ENV_VARS, OTHER_ENV_VARS
    from citeaudit.resolve.indexes.online import IndexEndpoints
    from citeaudit.resolve.registry import Endpoints

    flags = _flags_by_dest()
    comments = _field_comments(__import__("citeaudit.config", fromlist=["Config"]).Config)
    rows = [
        (var, f"[{code(key)}](#setting-{key})", _describe(key, flags, comments))
        for key, var in ENV_VARS.items()
    ]
    urls: dict[str, str] = {}
    readers: dict[str, list[str]] = {}
    for endpoints, reader in (
        (Endpoints, "DOI and arXiv resolution"),
        (IndexEndpoints, "bibliographic search"),
    ):
        for field in dataclasses.fields(endpoints):
            var = f"CITEAUDIT_{field.name.upper()}_URL"
            urls.setdefault(var, str(field.default))
            readers.setdefault(var, []).append(reader)
    for var in OTHER_ENV_VARS:
        if var in urls:
            name = var.removeprefix("CITEAUDIT_").removesuffix("_URL").lower()
            rows.append(
                (
                    var,
                    ", ".join(readers[var]),
                    f"the base URL of the {name} API, for a private mirror or a test server "
                    f"(default `{urls[var]}`)",
                )
            )
        elif var == "CITEAUDIT_CONFIG":
            rows.append((var, code("--config"), _BRACKET.sub("", flags["config"][1])))
        elif var in NOTES:
            rows.append((var, "", NOTES[var]))
        else:
            raise PluginError(f"the variable {var} is described nowhere")
    return rows


def render_config() -> list[str]:
    rows = config_rows()
    lines = table(
        ("key", "type", "default", "environment", "flag", "meaning"),
        [
            (
                f"{code(key)}{{#setting-{key.split()[-1].strip('[]')}}}",
                kind,
                default,
                code(var) if var else "",
                code(flag) if flag else "",
                prose(meaning),
            )
            for key, kind, default, var, flag, meaning in rows
        ],
    )
    return [f"{len(rows)} settings.", "", *lines]


def render_env() -> list[str]:
    rows = env_rows()
    lines = table(
        ("variable", "setting", "meaning"),
        [(f"{code(var)}{{#{var.lower()}}}", setting, prose(meaning)) for var, setting, meaning in rows],
    )
    return [f"{len(rows)} variables.", "", *lines]


# --- MCP tools -----------------------------------------------------------------------------------


def mcp_tools() -> list[Any]:
    """The tools as the server lists them to a client (``tools/list``), in its order."""
    from mcp import Client

    from citeaudit.config import Config
    from citeaudit.service.mcp import McpOptions, build_server
    from citeaudit.wiring import read_only_auditor

    with tempfile.TemporaryDirectory() as tmp:
        server = build_server(McpOptions(auditor=read_only_auditor(Config(cache=Path(tmp)))))

        async def listed() -> list[Any]:
            async with Client(server) as client:
                return list((await client.list_tools()).tools)

        return asyncio.run(listed())


def _json_block(value: Any, indent: str = "    ") -> list[str]:
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    return [indent + "```json", *(indent + line for line in text.splitlines()), indent + "```"]


def render_mcp() -> list[str]:
    from citeaudit.service.mcp import INSTRUCTIONS

    tools = mcp_tools()
    lines = [
        f"{len(tools)} tools, in the order the server lists them. What the server tells an agent "
        "when it connects:",
        "",
        "> " + prose(INSTRUCTIONS),
        "",
    ]
    for tool in tools:
        hints = tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else {}
        lines += [f"## {tool.name} {{#{tool.name}}}", "", prose(tool.description or ""), ""]
        if hints:
            lines += [
                "Annotations: " + ", ".join(code(f"{k}: {str(v).lower()}") for k, v in hints.items()) + ".",
                "",
            ]
        schema = tool.input_schema
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        if props:
            rows = [
                (
                    code(name),
                    _type(prop, {}),
                    "yes" if name in required else "",
                    prose(_describe_schema(prop)),
                )
                for name, prop in props.items()
            ]
            lines += table(("argument", "type", "required", "meaning"), rows)
        else:
            lines.append("No arguments.")
        lines += ["", '??? note "Input schema"', "", *_json_block(schema), ""]
        output = tool.output_schema
        if output:
            lines += ['??? note "Output schema"', "", *_json_block(output), ""]
    return lines


# --- The HTTP API --------------------------------------------------------------------------------


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _schema_anchor(name: str) -> str:
    return "schema-" + name.lower()


def _type(schema: Mapping[str, Any], known: Mapping[str, Any]) -> str:
    """A schema's type in a few words, its named schemas linked."""
    if "$ref" in schema:
        name = _ref_name(schema["$ref"])
        return f"[{name}](#{_schema_anchor(name)})" if name in known else code(name)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(_type(s, known) for s in schema[key])
    if "const" in schema:
        return code(json.dumps(schema["const"]))
    if "enum" in schema:
        return "one of " + ", ".join(code(json.dumps(v)) for v in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(_type({**schema, "type": k}, known) for k in kind)
    if kind == "array":
        return "array of " + _type(schema.get("items", {}), known)
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return "object of " + _type(schema["additionalProperties"], known)
    if kind is None:
        return "any"
    return str(kind) + (f" ({schema['format']})" if "format" in schema else "")


def _plural(n: Any, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


_CONSTRAINTS: tuple[tuple[str, Callable[[Any], str]], ...] = (
    ("minLength", lambda n: "at least " + _plural(n, "character")),
    ("maxLength", lambda n: "at most " + _plural(n, "character")),
    ("minimum", lambda n: f"at least {n}"),
    ("maximum", lambda n: f"at most {n}"),
    ("exclusiveMinimum", lambda n: f"over {n}"),
    ("minItems", lambda n: "at least " + _plural(n, "item")),
    ("maxItems", lambda n: "at most " + _plural(n, "item")),
)


def _describe_schema(schema: Mapping[str, Any]) -> str:
    parts = [schema.get("description", "")]
    found = [say(schema[key]) for key, say in _CONSTRAINTS if key in schema]
    if "pattern" in schema:
        found.append(f"matches `{schema['pattern']}`")
    if "default" in schema and schema["default"] not in (None, [], {}):
        found.append(f"default `{json.dumps(schema['default'], ensure_ascii=False)}`")
    if found:
        parts.append("(" + "; ".join(found) + ")")
    return " ".join(p for p in parts if p)


def _properties(schema: Mapping[str, Any], known: Mapping[str, Any]) -> list[str]:
    required = set(schema.get("required", []))
    rows = [
        (code(name), _type(prop, known), "yes" if name in required else "", prose(_describe_schema(prop)))
        for name, prop in schema.get("properties", {}).items()
    ]
    return table(("field", "type", "required", "meaning"), rows)


def _schema_section(name: str, schema: Mapping[str, Any], known: Mapping[str, Any]) -> list[str]:
    lines = [f"### {name} {{#{_schema_anchor(name)}}}", ""]
    if schema.get("description"):
        lines += [prose(schema["description"]), ""]
    if "properties" in schema:
        closed = schema.get("additionalProperties") is False
        lines += [*_properties(schema, known), ""]
        if closed:
            lines += ["No other field is accepted.", ""]
    for key in ("oneOf", "anyOf"):
        for variant in schema.get(key, []):
            if "properties" in variant:
                lines += [f"**{variant.get('title', name)}**" + (", one of:" if key == "oneOf" else ":"), ""]
                lines += [*_properties(variant, known), ""]
            else:
                lines += [f"- {_type(variant, known)}"]
        if schema.get(key):
            lines.append("")
    if "properties" not in schema and not any(k in schema for k in ("oneOf", "anyOf")):
        lines += [f"Type: {_type(schema, known)}.", ""]
    return lines


def _first_sentence(text: str) -> str:
    """The first sentence of an operation's description, when it is short enough for a table."""
    m = re.match(r"(.+?\.)(\s|$)", " ".join(text.split()))
    return m.group(1) if m and len(m.group(1)) <= 200 else ""


def _operation_anchor(method: str, path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", f"{method} {path}".lower()).strip("-")


def render_http() -> list[str]:
    spec = json.loads(OPENAPI.read_text("utf-8"))
    schemas: dict[str, Any] = spec.get("components", {}).get("schemas", {})
    responses: dict[str, Any] = spec.get("components", {}).get("responses", {})
    security = spec.get("components", {}).get("securitySchemes", {})
    info = spec["info"]
    lines = [
        f"{info['title']} {info['version']}, OpenAPI {spec['openapi']}. "
        + prose(info.get("description", "")),
        "",
    ]
    for name, scheme in security.items():
        lines += [f"Security scheme {code(name)}: {scheme.get('type')} {scheme.get('scheme', '')}. "
                  + prose(scheme.get("description", "")), ""]  # fmt: skip
    operations = [
        (path, method, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]
    lines += table(
        ("operation", "what it does"),
        [
            (
                f"[{code(method.upper() + ' ' + path)}](#{_operation_anchor(method, path)})",
                prose(_first_sentence(op.get("description", "")) or op.get("summary", "")),
            )
            for path, method, op in operations
        ],
    )
    lines += ["", "## Operations", ""]
    for path, method, op in operations:
        lines += [f"### {method.upper()} {path} {{#{_operation_anchor(method, path)}}}", ""]
        if op.get("description"):
            lines += [prose(op["description"]), ""]
        needs_key = bool(op.get("security", spec.get("security")))
        lines += ["Needs a key." if needs_key else "Needs no key.", ""]
        if op.get("parameters"):
            rows = [
                (
                    code(p["name"]),
                    p["in"],
                    _type(p.get("schema", {}), schemas),
                    "yes" if p.get("required") else "",
                    prose(
                        _describe_schema(
                            {
                                **p.get("schema", {}),
                                **({"description": p["description"]} if "description" in p else {}),
                            }
                        )
                    ),
                )
                for p in op["parameters"]
            ]
            lines += ["Parameters:", "", *table(("name", "in", "type", "required", "meaning"), rows), ""]
        body = op.get("requestBody")
        if body:
            lines += ["Request body" + (" (required)" if body.get("required") else "") + ": "
                      + prose(body.get("description", "")), ""]  # fmt: skip
            media_rows = [
                (
                    code(media),
                    _type(content.get("schema", {}), schemas),
                    prose(
                        _describe_schema({"description": content.get("schema", {}).get("description", "")})
                    ),
                )
                for media, content in body.get("content", {}).items()
            ]
            lines += [*table(("media type", "schema", "meaning"), media_rows), ""]
        answers = []
        for status, answer in op.get("responses", {}).items():
            if "$ref" in answer:
                name = _ref_name(answer["$ref"])
                answer = {**responses.get(name, {}), **{k: v for k, v in answer.items() if k != "$ref"}}
            media = ", ".join(
                f"{code(m)} {_type(c.get('schema', {}), schemas)}"
                for m, c in answer.get("content", {}).items()
            )
            answers.append((code(status), prose(answer.get("description", "")), media))
        lines += ["Responses:", "", *table(("status", "meaning", "body"), answers), ""]
    lines += ["## Schemas", ""]
    for name in sorted(schemas):
        lines += _schema_section(name, schemas[name], schemas)
    return lines


# --- The hook ------------------------------------------------------------------------------------

GENERATORS: dict[str, Callable[[], list[str]]] = {
    "extras": render_extras,
    "cli": render_cli,
    "config": render_config,
    "env": render_env,
    "mcp": render_mcp,
    "http": render_http,
}
_used: dict[str, str] = {}


def render(name: str, explained: Mapping[str, list[tuple[str, str]]] | None = None) -> str:
    """The Markdown a marker is replaced with."""
    if name == "codes":
        return "\n".join(render_codes(explained or {}))
    return "\n".join(GENERATORS[name]())


def _explained(files: Any, page_url: str) -> dict[str, list[tuple[str, str]]]:
    """Code → (title, relative link) of every hand-written guide that names it."""
    import posixpath

    found: dict[str, list[tuple[str, str]]] = {}
    for file in files.documentation_pages():
        if not file.src_uri.startswith(("guides/", "getting-started/")):
            continue
        text = file.content_string
        title = re.search(r"^# (.+)$", text, re.M)
        link = posixpath.relpath(file.src_uri, posixpath.dirname(page_url))
        for codename in set(re.findall(r"`([EWI]_[A-Z_]+)", text)):
            found.setdefault(codename, []).append((title.group(1) if title else file.src_uri, link))
    return {k: sorted(v) for k, v in found.items()}


def on_pre_build(config: Any) -> None:
    _used.clear()


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    def replace(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in GENERATORS and name != "codes":
            raise PluginError(f"{page.file.src_uri}: no generator for <!-- reference: {name} -->")
        if name in _used:
            raise PluginError(f"{page.file.src_uri}: <!-- reference: {name} --> is on {_used[name]} already")
        _used[name] = page.file.src_uri
        explained = _explained(files, page.file.src_uri) if name == "codes" else None
        return render(name, explained)

    return MARKER.sub(replace, markdown)


def on_post_build(config: Any) -> None:
    missing = sorted({*GENERATORS, "codes"} - set(_used))
    if missing:
        raise PluginError(f"no page asks for the generated reference of {', '.join(missing)}")
