"""``citeaudit serve`` (the HTTP API) and ``citeaudit keys add`` (its API keys)."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from citeaudit.cli.common import (
    EXIT_CLEAN,
    Parser,
    add_cache_option,
    add_config_option,
    add_judge_options,
    add_mirror_option,
    add_sources_option,
    add_store_option,
    effective_config,
    positive,
    require_extra,
    write_file,
)
from citeaudit.errors import ConfigError
from citeaudit.service.keys import ROLES

if TYPE_CHECKING:
    from citeaudit.config import Config

__all__ = ["add_parsers", "run_keys", "run_serve"]


def _port(value: str) -> int:
    number = positive(value)
    if number > 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 1 to 65535, got {value!r}")
    return number


MAX_WORKERS = 64


def _workers(value: str) -> int:
    number = positive(value)
    if number > MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"expected 1 to {MAX_WORKERS} worker processes, got {value!r}")
    return number


def _listen(host: str, port: int, workers: int = 1) -> list[socket.socket]:
    """The listening sockets, bound here so that a port in use is one clear line, not a log: one,
    or on Linux one per worker (``SO_REUSEPORT``: the kernel spreads the connections over them).
    The address is first bound alone, so a port another process listens on, with SO_REUSEPORT or
    without, is refused rather than shared."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        first = socket.create_server((host, port), family=family)
        if workers == 1 or not _SPREAD:
            return [first]
        first.close()
        return [socket.create_server((host, port), family=family, reuse_port=True) for _ in range(workers)]
    except OSError as e:
        reason = os.strerror(e.errno) if e.errno else str(e)
        raise ConfigError(f"cannot listen on {host}:{port}: {reason}") from None


# Linux spreads the connections to one address over the sockets bound with SO_REUSEPORT; other
# systems let the last one bound take them all, so their workers share one socket.
_SPREAD = sys.platform == "linux" and hasattr(socket, "SO_REUSEPORT")


def add_parsers(commands: argparse._SubParsersAction[Parser]) -> None:
    serve = commands.add_parser("serve", help="the HTTP API (FastAPI on uvicorn), with tenants and roles")
    add_store_option(serve)
    serve.add_argument(
        "--keys",
        type=Path,
        help="TOML file of hashed API keys (citeaudit keys add); required, but not with --openapi",
    )
    serve.add_argument("--host", default="127.0.0.1", help="[127.0.0.1]")
    serve.add_argument("--port", type=_port, default=8080, help="[8080]")
    serve.add_argument(
        "--workers",
        type=_workers,
        default=1,
        help="worker processes answering on the address and writing the store, each auditing on a "
        "core of its own; a worker that ends is replaced [1]",
    )
    add_cache_option(serve)
    add_sources_option(serve)
    add_mirror_option(serve)
    serve.add_argument(
        "--max-body-bytes", type=positive, default=2_000_000, help="request body limit [2000000]"
    )
    add_judge_options(serve)
    serve.add_argument(
        "--openapi",
        action="store_true",
        help="print the OpenAPI schema and exit (no other flag needed; no store opened, no file written)",
    )
    add_config_option(serve)
    serve.set_defaults(func=run_serve)

    keys = commands.add_parser("keys", help="manage the HTTP API's keys")
    actions = keys.add_subparsers(dest="action", required=True, parser_class=Parser)
    add = actions.add_parser(
        "add", help="create a key for a tenant and a role; print it once, store its hash"
    )
    add.add_argument("--keys", type=Path, required=True, help="the TOML key file (created when missing)")
    add.add_argument("--tenant", required=True)
    add.add_argument("--role", required=True, choices=ROLES)
    add.add_argument("--name", default="", help="who holds the key (recorded with reviews)")
    add.add_argument(
        "--user",
        default="service",
        help="the user scope it acts for: its sources are TENANT/USER's [service, shared by the tenant]",
    )
    add.set_defaults(func=run_keys)


def run_keys(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from citeaudit.service.keys import hash_key, load_keys
    from citeaudit.store.evidence import Scope

    Scope.parse(f"{args.tenant}/{args.user}")
    existing = args.keys.read_text("utf-8") if args.keys.exists() else ""
    if existing:
        load_keys(args.keys, require_one=False)  # refuse to append to a broken file
    key = "ca_" + secrets.token_urlsafe(32)
    entry = (
        f'\n[[key]]\nsha256 = "{hash_key(key)}"\ntenant = {json.dumps(args.tenant)}\n'
        f"role = {json.dumps(args.role)}\nname = {json.dumps(args.name)}\n"
    )
    if args.user != "service":
        entry += f"user = {json.dumps(args.user)}\n"
    write_file(args.keys, (existing + entry).encode("utf-8"))
    print(key, file=stdout)
    return EXIT_CLEAN


def run_serve(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    require_extra("service", "citeaudit serve")
    from citeaudit.service.http import ServiceSettings, create_app, load_keys

    if args.keys is None and not args.openapi:
        raise ConfigError(
            "usage: the following arguments are required: --keys (see 'citeaudit serve --help')"
        )
    config = effective_config(args)
    if args.openapi:
        return _print_openapi(args, config, stdout)
    if not config.store:
        raise ConfigError("no evidence store: give --store (a SQLite file or a postgresql:// URL)")
    settings = ServiceSettings(
        store=config.store, keys=load_keys(args.keys), config=config, max_body_bytes=args.max_body_bytes
    )
    app = create_app(settings)  # with --workers too: whatever is wrong is said here, once
    sockets = _listen(args.host, args.port, args.workers)
    try:
        if args.workers == 1:
            from citeaudit.service.http.workers import serve_one

            return serve_one(app, sockets, log_level="warning", access_log=False)
        from citeaudit.service.http.workers import Workers

        app.state.store.close()  # each worker opens its own
        del app
        return Workers(settings, sockets, args.workers, stderr, log_level="warning", access_log=False).run()
    finally:
        for sock in sockets:
            sock.close()


def _print_openapi(args: argparse.Namespace, config: Config, stdout: TextIO) -> int:
    """The schema, which depends on the routes alone: the app is built on an in-memory store, so
    that no store is needed, opened or created; a key file and a judge, when given, are still
    checked, as for serving."""
    from citeaudit.service.http import ServiceSettings, create_app, load_keys

    keys = load_keys(args.keys) if args.keys is not None else []
    app = create_app(ServiceSettings(store="sqlite://", keys=keys, config=config))
    try:
        stdout.write(json.dumps(app.openapi(), indent=2, sort_keys=True) + "\n")
    finally:
        app.state.store.close()
    return EXIT_CLEAN
