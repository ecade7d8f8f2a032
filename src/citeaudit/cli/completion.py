"""``citeaudit completion SHELL``: the shell's completion script for every command and flag,
generated from the parser itself, so it cannot fall behind a new command."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from citeaudit.cli.common import EXIT_CLEAN, Parser

__all__ = ["SHELLS", "add_parser", "completion_script"]

SHELLS = ("bash", "zsh", "fish")


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    cmd = commands.add_parser(
        "completion",
        help="print the shell completion script for bash, zsh or fish",
        description='bash: `eval "$(citeaudit completion bash)"` in ~/.bashrc; zsh: '
        '`citeaudit completion zsh > "${fpath[1]}/_citeaudit"`; fish: '
        "`citeaudit completion fish > ~/.config/fish/completions/citeaudit.fish`.",
    )
    cmd.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    cmd.set_defaults(func=run)


def _actions(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        yield action
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):  # aliases share a parser
                yield from _actions(sub)


def completion_script(shell: str) -> str:
    import shtab  # only this command needs it

    from citeaudit.cli import build_parser

    parser = build_parser()
    for action in _actions(parser):
        if action.type is Path:  # a file argument: the shell completes file names
            action.complete = shtab.FILE  # type: ignore[attr-defined]
    return shtab.complete(parser, shell=shell)


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    stdout.write(completion_script(args.shell))
    return EXIT_CLEAN
