"""The action's cache step: name the cache and snapshot files a pull request changes.

The audit trusts the committed cache: an entry whose bytes are not the ones its ``MANIFEST.json``
records is E_CACHE_CORRUPT, but a pull request that edits an entry and its manifest line together
cannot be told apart by digests. So every change to those files is said where a reviewer sees it: a
``::warning`` line naming them (and the step summary), from ``git diff --name-only`` against the pull
request's base when the checkout has it (``actions/checkout`` with ``fetch-depth: 0``), a ``::notice``
when it has not. Outside a pull request it says nothing. It never fails the job.

The directories are those ``citeaudit check`` reads: ``--cache``/``--sources``/``--config`` in the
action's ``args``, else the configuration file and the environment, else ``cache`` and ``sources``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path


def _annotation(text: str) -> str:
    """A workflow command's message: %, CR and LF encoded as the runner expects."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _flag(words: list[str], name: str) -> str | None:
    value = None
    for i, word in enumerate(words):
        if word == name and i + 1 < len(words):
            value = words[i + 1]
        elif word.startswith(name + "="):
            value = word.split("=", 1)[1]
    return value


def directories(args: str, cwd: Path) -> list[Path]:
    """The cache and snapshot directories the audit reads, relative to ``cwd`` where they lie in it."""
    words = shlex.split(args)
    cache, sources, config = _flag(words, "--cache"), _flag(words, "--sources"), _flag(words, "--config")
    try:
        from citeaudit.config import load_config

        loaded = load_config(cwd, Path(config) if config else None)
        found = [Path(cache) if cache else loaded.cache, Path(sources) if sources else loaded.sources]
    except Exception:  # a configuration the audit step will refuse with its own message
        found = [Path(cache or "cache"), Path(sources or "sources")]
    out: list[Path] = []
    for path in found:
        absolute = path if path.is_absolute() else cwd / path
        try:
            path = absolute.resolve().relative_to(cwd.resolve())
        except ValueError:
            path = absolute
        if path not in out:
            out.append(path)
    return out


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], capture_output=True, text=True, timeout=120, check=False)


def _base(sha: str, ref: str) -> str | None:
    """A commit of the base that this checkout holds, or None."""
    candidates = [sha] if sha else []
    if ref:
        candidates.append(f"origin/{ref}")
    for candidate in candidates:
        if _git("cat-file", "-e", f"{candidate}^{{commit}}").returncode == 0:
            return candidate
    return None


def changed_files(base: str, paths: list[Path]) -> list[str] | None:
    """The files under ``paths`` that differ between ``base`` (its merge base with HEAD) and HEAD."""
    specs = ["--", *(p.as_posix() for p in paths)]
    for form in ([f"{base}...HEAD"], [base, "HEAD"]):  # a shallow checkout may have no merge base
        done = _git("diff", "--name-only", "--no-renames", "-z", *form, *specs)
        if done.returncode == 0:
            return sorted(name for name in done.stdout.split("\0") if name)
    return None


def main() -> int:
    outputs = os.environ.get("GITHUB_OUTPUT", os.devnull)
    summary = os.environ.get("GITHUB_STEP_SUMMARY", os.devnull)
    sha, ref = os.environ.get("AUDIT_BASE_SHA", ""), os.environ.get("AUDIT_BASE_REF", "")
    if not (sha or ref):
        return 0  # not a pull request: nothing to compare with
    try:
        paths = directories(os.environ.get("AUDIT_ARGS", ""), Path.cwd())
    except ValueError as e:  # unbalanced quotes: the audit step says so
        print(f"::notice title=citeaudit::the cache files were not compared: args: {_annotation(str(e))}")
        return 0
    base = _base(sha, ref)
    changed = changed_files(base, paths) if base is not None else None
    shown = ", ".join(p.as_posix() for p in paths)
    if changed is None:
        print(
            f"::notice title=citeaudit::the pull request's base is not in this checkout, so changes to "
            f"the cache ({_annotation(shown)}) were not listed (actions/checkout with fetch-depth: 0)"
        )
        return 0
    with open(outputs, "a", encoding="utf-8") as fh:
        fh.write(f"cache-changes={len(changed)}\n")
    if not changed:
        print(f"citeaudit: the pull request changes no cache file ({shown})")
        return 0
    manifests = [name for name in changed if name.rsplit("/", 1)[-1] == "MANIFEST.json"]
    note = (
        f"; it changes {', '.join(manifests)} too: the recorded digests prove nothing then"
        if manifests
        else ""
    )
    message = (
        f"this pull request changes {len(changed)} cache file(s) the audit trusts: {', '.join(changed)}"
        f"{note} (review them; citeaudit cache verify re-resolves the entries online)"
    )
    print(f"::warning title=citeaudit: cache changed::{_annotation(message)}")
    with open(summary, "a", encoding="utf-8") as fh:
        fh.write("\n**The pull request changes cache files the audit trusts:**\n\n")
        fh.writelines(f"- `{name}`\n" for name in changed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
