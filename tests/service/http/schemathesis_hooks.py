"""What schemathesis is told beyond the OpenAPI document when it tests the service
(``SCHEMATHESIS_HOOKS=tests.service.http.schemathesis_hooks``, see ``test_schemathesis.py``).

* BibTeX bodies (the schema's ``format: bibtex``): entries as people write them, with any text
  in the title, so that a generated BibTeX body is a bibliography; Markdown bodies (``format:
  markdown``) likewise a research report with markers and a references section.
* The rules of a claims document that JSON Schema cannot state and the schema's descriptions
  give in words: claim ids unique in the document, conflicts naming claims of the document, one
  content per inline citation id. A schema-valid document generated to be accepted is made to
  keep them; documents generated to be rejected are left as they are.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import strategies as st

_TITLE = st.text(st.characters(codec="utf-8", exclude_characters="{}\\@%"), max_size=60)
_KEY = st.from_regex(r"[a-z][a-z0-9]{0,10}", fullmatch=True)
_DOI = st.from_regex(r"10\.[0-9]{4,5}/[a-z0-9.]{1,12}", fullmatch=True)


def _entry(key: str, title: str, doi: str | None, year: int | None) -> str:
    fields = [f"  title = {{{title}}}"]
    if doi is not None:
        fields.append(f"  doi = {{{doi}}}")
    if year is not None:
        fields.append(f"  year = {{{year}}}")
    return f"@article{{{key},\n" + ",\n".join(fields) + "\n}\n"


_ENTRIES = st.lists(
    st.tuples(_KEY, _TITLE, st.none() | _DOI, st.none() | st.integers(1000, 2999)),
    min_size=1,
    max_size=4,
    unique_by=lambda e: e[0],
)
schemathesis.openapi.format("bibtex", _ENTRIES.map(lambda entries: "".join(_entry(*e) for e in entries)))

# Markdown bodies (``format: markdown``): a research report, sentences with markers and a
# references section whose entries are titles as people write them.
_WORDS = st.from_regex(r"[A-Z][a-z]{2,12}( [a-z]{2,12}){2,8}", fullmatch=True)


def _report(claims: list[str], titles: list[str]) -> str:
    body = "".join(f"{claim} [{i % len(titles) + 1}].\n\n" for i, claim in enumerate(claims))
    refs = "".join(f"{i}. Smith, J. ({2000 + i}). {title}.\n" for i, title in enumerate(titles, 1))
    return f"# Report\n\n{body}## References\n\n{refs}"


schemathesis.openapi.format(
    "markdown",
    st.builds(_report, st.lists(_WORDS, min_size=1, max_size=3), st.lists(_WORDS, min_size=1, max_size=3)),
)


def _keep_document_rules(document: dict[str, Any]) -> None:
    claims = [c for c in document.get("claims", []) if isinstance(c, dict)]
    id_key = "claim_id" if any("claim_id" in c for c in claims) else "id"
    citation_key = "citation_id" if id_key == "claim_id" else "id"
    ids = []
    for i, claim in enumerate(claims):
        claim[id_key] = f"c{i + 1}"
        ids.append(claim[id_key])
        for j, citation in enumerate(claim.get("citations", [])):
            if isinstance(citation, dict) and citation.get(citation_key) is not None:
                citation[citation_key] = f"c{i + 1}#{j + 1}"
    conflicts = document.get("conflicts")
    if isinstance(conflicts, list):
        document["conflicts"] = (
            [{**c, "claim_ids": ids[:2]} for c in conflicts if isinstance(c, dict)] if len(ids) >= 2 else []
        )


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    meta = case.meta
    if (
        case.operation.path == "/v1/audit"
        and meta is not None
        and meta.generation.mode.is_positive
        and isinstance(case.body, dict)
    ):
        _keep_document_rules(case.body)
    return case
