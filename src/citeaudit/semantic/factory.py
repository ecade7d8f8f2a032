"""Judges from their specs: one table of backends, so a new judge is one module and one entry.

A spec is ``NAME`` or ``NAME:ARGUMENT`` (``rules``, ``learned``, ``learned:wice``, ``learned:MODEL.json``,
``nli:MODEL``, ``llm:MODEL@URL``),
``rules+SPEC`` (the rules judge first, the judge of ``SPEC`` for what it leaves ``unknown``), or
``none`` (no semantic stage; :func:`configured_judge` only)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from citeaudit.errors import ConfigError
from citeaudit.semantic.interface import Judge

__all__ = ["BACKENDS", "JUDGE_SPECS", "Backend", "configured_judge", "default_model", "make_judge"]


@dataclass(frozen=True)
class Backend:
    """A judge backend as a spec names it."""

    syntax: str  # the spec in full, for help texts and the README: nli:MODEL[?OPTIONS][#LABELS]
    short: str  # the spec in brief, for messages: nli:MODEL
    build: Callable[[str, str, bool], Judge]  # (spec, ARGUMENT, offline) → the judge
    takes_argument: bool = True  # False: the spec is the bare name
    cache_only_offline: bool = False  # offline it can only answer from cached verdicts (a remote model)
    never_cached: bool = False  # as cheap to judge again as to read a cached verdict


def _rules(spec: str, argument: str, offline: bool) -> Judge:
    from citeaudit.semantic.rules import RulesJudge

    return RulesJudge()


def _learned(spec: str, argument: str, offline: bool) -> Judge:
    from citeaudit.semantic.learned import LearnedJudge, load_model, shipped_model_path

    if spec != "learned" and not argument:
        raise ConfigError(f"judge {spec!r}: expected learned, learned:{_NAMES} or learned:MODEL.json")
    if argument in _DOMAINS:  # a shipped model by its name; a file of that name is ./NAME
        return LearnedJudge(load_model(shipped_model_path(_DOMAINS[argument]())))
    if not argument:  # the pooled model, and for passages found in a cited text the model made for them
        retrieved = load_model(shipped_model_path("retrieved"))
        return LearnedJudge(load_model(shipped_model_path(default_model())), retrieved=retrieved)
    return LearnedJudge(load_model(Path(argument)))


def encoder_available() -> bool:
    """Whether the ``encoder`` extra is installed (the models that read meaning can run)."""
    from citeaudit.semantic import encoder

    return encoder.available()


def default_model() -> str:
    """The shipped model ``--judge learned`` reads quoted evidence with: the pooled model that reads the
    sentence encoder's features too where the ``encoder`` extra is installed, the lexical one else."""
    return "encoder" if encoder_available() else "default"


def _domain(name: str) -> Callable[[], str]:
    """A domain's shipped model: the one that reads meaning too where the encoder extra is installed."""
    return lambda: f"{name}-encoder" if encoder_available() else name


def _fixed(name: str) -> Callable[[], str]:
    return lambda: name


# The shipped models a spec names (learned.SHIPPED_MODELS), each chosen when the spec is read: per domain
# (the one that reads meaning too where the encoder extra is installed, or either by its full name), for
# retrieved passages, the pooled lexical one (whatever extras are installed) and the pooled one with the
# encoder's features.
_DOMAINS: dict[str, Callable[[], str]] = {
    **{d: _domain(d) for d in ("wice", "attribution", "climate")},
    **{f"{d}-lexical": _fixed(d) for d in ("wice", "attribution", "climate")},
    **{f"{d}-encoder": _fixed(f"{d}-encoder") for d in ("wice", "attribution", "climate")},
    "retrieved": _fixed("retrieved"),
    "lexical": _fixed("default"),
    "encoder": _fixed("encoder"),
}
# How help texts and messages list them
_NAMES = "wice|attribution|climate[-lexical|-encoder]|retrieved|lexical|encoder"


def _llm(spec: str, argument: str, offline: bool) -> Judge:
    model, at, url = argument.rpartition("@")
    if not at or not model or not url.startswith(("http://", "https://")):
        raise ConfigError(f"judge {spec!r}: expected llm:MODEL@http(s)://HOST/PATH")
    from citeaudit.semantic.llm import LlmJudge

    return LlmJudge(url, model)


def _nli_options(spec: str, query: str) -> tuple[int | None, str | None]:
    """The batch size and device of ``?batch=N&device=D`` in an nli spec: how
    the model runs, not what it says, so neither is part of the judge's identity."""
    batch: int | None = None
    device: str | None = None
    for item in filter(None, query.split("&")):
        key, _, value = item.partition("=")
        if key == "device" and value:
            device = value
        elif key == "batch":
            if not (value.isascii() and value.isdigit()) or int(value) < 1:
                raise ConfigError(f"judge {spec!r}: batch must be a positive integer, got {value!r}")
            batch = int(value)
        else:
            raise ConfigError(f"judge {spec!r}: unknown nli option {item!r}; expected batch=N or device=D")
    return batch, device


def _nli(spec: str, argument: str, offline: bool) -> Judge:
    located, _, labels = argument.partition("#")
    model, _, query = located.partition("?")
    if not model:
        raise ConfigError(f"judge {spec!r}: expected nli:MODEL_DIR_OR_HUB_ID[?OPTIONS][#LABEL,…]")
    batch, device = _nli_options(spec, query)
    from citeaudit.semantic.nli import NliJudge

    mapping = tuple(v.strip() for v in labels.split(",")) if labels else ()
    return NliJudge(model, labels=mapping, batch_size=batch, device=device, local_only=offline)


# Every backend a spec can name, in the order help texts and messages list them.
BACKENDS: dict[str, Backend] = {
    "rules": Backend("rules", "rules", _rules, takes_argument=False),
    "learned": Backend(
        f"learned[:{_NAMES}|MODEL.json]", "learned[:NAME|MODEL.json]", _learned, never_cached=True
    ),
    "nli": Backend("nli:MODEL[?OPTIONS][#LABELS]", "nli:MODEL", _nli),
    "llm": Backend("llm:MODEL@URL", "llm:MODEL@URL", _llm, cache_only_offline=True),
}
CASCADE = "rules+"
# Every spec form, for help texts and the README.
JUDGE_SPECS: dict[str, str] = {
    **{name: backend.syntax for name, backend in BACKENDS.items()},
    "cascade": f"{CASCADE}SPEC",
    "none": "none",
}


def make_judge(spec: str, cache_dir: Path | None = None, *, offline: bool = False) -> Judge:
    """A judge from its spec: ``rules`` (the offline default),
    ``learned`` (the shipped pooled model: :func:`default_model`), ``learned:lexical`` and
    ``learned:encoder`` (the pooled model without and with the sentence encoder's features),
    ``learned:wice``, ``learned:attribution``, ``learned:climate`` (the shipped per-domain models),
    ``learned:retrieved`` or ``learned:MODEL.json`` (a model file),
    ``nli:MODEL`` (a local model directory or a hub id, optionally
    ``?batch=N&device=D`` for how it runs and ``#label,label,…``
    for a head with meaningless label names) or
    ``llm:MODEL@BASE_URL`` (an OpenAI-compatible endpoint, e.g.
    ``llm:qwen2.5-7b-instruct@http://127.0.0.1:8000/v1``). With ``cache_dir``
    its verdicts are cached there. ``offline`` keeps an ``llm`` judge to its
    cached verdicts and an ``nli`` model to files already on disk.

    ``rules+SPEC`` runs the rules judge first and asks the judge of ``SPEC``
    only about the claims it leaves ``unknown``."""
    if spec.startswith(CASCADE):
        from citeaudit.semantic.cascade import CascadeJudge
        from citeaudit.semantic.rules import RulesJudge

        return CascadeJudge(RulesJudge(), make_judge(spec.removeprefix(CASCADE), cache_dir, offline=offline))
    name, _, argument = spec.partition(":")
    backend = BACKENDS.get(name)
    if backend is None or (not backend.takes_argument and spec != name):
        expected = ", ".join(repr(b.short) for b in BACKENDS.values())
        raise ConfigError(
            f"unknown judge {spec!r}; expected {expected} or {CASCADE!r} and one of these "
            "('none' skips the semantic stage)"
        )
    judge = backend.build(spec, argument, offline)
    if cache_dir is None or backend.never_cached:
        if offline and backend.cache_only_offline:
            raise ConfigError(
                f"offline, an {name} judge can only answer from a verdict cache: give --verdict-cache"
            )
        return judge
    from citeaudit.semantic.cache import CachedJudge

    return CachedJudge(judge, cache_dir, offline=offline and backend.cache_only_offline)


def configured_judge(spec: str, *, verdict_cache: Path | None, cache: Path, offline: bool) -> Judge | None:
    """The judge an audit runs for a spec, as ``check`` and the Python API build it:
    None for ``none``; the verdicts of the backends that cost something cached in
    ``verdict_cache``, by default ``verdicts`` under the registry cache directory."""
    if spec == "none":
        return None
    if verdict_cache is None and spec != "rules":
        verdict_cache = cache / "verdicts"
    return make_judge(spec, verdict_cache, offline=offline)
