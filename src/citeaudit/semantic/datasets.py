"""Labelled claim–evidence pairs from public benchmarks, mapped onto the four
verdicts. Gold labels are only ever ``entailed``, ``contradicted`` or
``insufficient``; ``unknown`` is what a judge says when it abstains.

- WiCE (``entailment_retrieval_claim`` JSONL): the cited web page's sentences
  are the fragment; supported → entailed, partially_supported and
  not_supported → insufficient.
- CLIMATE-FEVER (JSONL): one pair per claim and evidence sentence; SUPPORTS →
  entailed, REFUTES → contradicted, NOT_ENOUGH_INFO → insufficient (the
  claim-level DISPUTED label is not used).
- AttributionBench (JSONL): the references are the fragments; attributable →
  entailed, not attributable → insufficient.
- ``labelled``: citeaudit's own JSONL of labelled pairs, one
  ``{"claim", "fragments", "label"}`` object a line (fragments are strings or
  ``{"id", "text"}``; the label is a review verdict: supported →
  entailed, insufficient, contradicted).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeaudit.errors import InputError
from citeaudit.semantic.interface import Fragment, VerdictLabel

__all__ = ["DATASETS", "Pair", "load_pairs"]


@dataclass(frozen=True, slots=True)
class Pair:
    pair_id: str
    claim: str
    fragments: tuple[Fragment, ...]
    gold: VerdictLabel


_WICE = {"supported": "entailed", "partially_supported": "insufficient", "not_supported": "insufficient"}
_CLIMATE = {"SUPPORTS": "entailed", "REFUTES": "contradicted", "NOT_ENOUGH_INFO": "insufficient"}
_ATTRIBUTION = {"attributable": "entailed", "not attributable": "insufficient"}


class _BadLabel(ValueError):
    pass


def _label(mapping: dict[str, str], value: Any) -> VerdictLabel:
    label = mapping.get(str(value).strip()) if value is not None else None
    if label is None:
        raise _BadLabel(f"unknown label {value!r}; expected one of {', '.join(sorted(mapping))}")
    return label  # type: ignore[return-value]


def _wice(row: dict[str, Any], where: str) -> Iterator[Pair]:
    page = "\n".join(str(s) for s in row["evidence"])
    yield Pair(where, str(row["claim"]), (Fragment("page", page),), _label(_WICE, row["label"]))


def _climate(row: dict[str, Any], where: str) -> Iterator[Pair]:
    for ev in row["evidences"]:
        gold = _label(_CLIMATE, ev["evidence_label"])
        yield Pair(f"{row['claim_id']}/{ev['evidence_id']}", str(row["claim"]),
                   (Fragment(str(ev["evidence_id"]), str(ev["evidence"])),), gold)  # fmt: skip


def _attribution(row: dict[str, Any], where: str) -> Iterator[Pair]:
    fragments = tuple(Fragment(f"ref{i + 1}", str(text)) for i, text in enumerate(row["references"]))
    yield Pair(str(row.get("id", where)), str(row["claim"]), fragments,
               _label(_ATTRIBUTION, row["attribution_label"]))  # fmt: skip


_LABELLED = {"supported": "entailed", "insufficient": "insufficient", "contradicted": "contradicted"}
_LABELLED_KEYS = frozenset({"id", "claim", "fragments", "label"})


def _labelled(row: dict[str, Any], where: str) -> Iterator[Pair]:
    """citeaudit's own JSONL: ``{"claim", "fragments": [text | {"id", "text"}], "label", "id"?}``."""
    unknown = sorted(set(row) - _LABELLED_KEYS)
    if unknown:
        raise _BadLabel(f"unknown field {unknown[0]!r}; expected id, claim, fragments, label")
    claim, given = row["claim"], row["fragments"]
    if not isinstance(claim, str) or not claim.strip() or not isinstance(given, list) or not given:
        raise _BadLabel("'claim' must be a non-empty string and 'fragments' a non-empty list")
    fragments = []
    for i, item in enumerate(given):
        text, cid = (item, f"f{i + 1}") if isinstance(item, str) else (item["text"], item["id"])
        if not isinstance(text, str) or not isinstance(cid, str):
            raise _BadLabel(f"fragments[{i}] must be a string or an object with string 'id' and 'text'")
        fragments.append(Fragment(cid, text))
    yield Pair(str(row.get("id", where)), claim, tuple(fragments), _label(_LABELLED, row["label"]))


DATASETS = {
    "wice": _wice,
    "climate-fever": _climate,
    "attribution-bench": _attribution,
    "labelled": _labelled,
}


def load_pairs(dataset: str, path: Path) -> list[Pair]:
    """Every pair of a dataset file; a malformed line is an input error naming it."""
    reader = DATASETS[dataset]
    pairs: list[Pair] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), "", f"cannot read: {exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
            pairs.extend(reader(row, where))
        except json.JSONDecodeError as exc:
            raise InputError(str(path), f"line {number}", f"not JSON: {exc.msg}") from None
        except _BadLabel as exc:
            raise InputError(str(path), f"line {number}", str(exc)) from None
        except (KeyError, TypeError, AttributeError) as exc:
            problem = f"not a {dataset} record (missing or malformed {exc})"
            raise InputError(str(path), f"line {number}", problem) from None
    if not pairs:
        raise InputError(str(path), "", f"no {dataset} records")
    return pairs
