# Baseline for the benchmarks: the validator of the source article
# "Автоматическая проверка цитат в ответах RAG" (seed 003, step 3, "verify.py"),
# copied verbatim apart from this header. It is run, never imported by citeaudit,
# and is not linted.
import json
import sys
from pathlib import Path

def load_json(path):
    with Path(path).open(encoding="utf-8") as handle:
        return json.load(handle)

def normalized(text):
    return " ".join(text.split()).casefold()

def verify(payload, documents):
    errors = []
    citations = payload.get("citations", [])
    claims = payload.get("claims", [])

    citation_by_id = {}
    for citation in citations:
        citation_id = citation.get("id")
        if not citation_id:
            errors.append({
                "code": "citation_id_missing",
                "citation_id": None
            })
            continue
        if citation_id in citation_by_id:
            errors.append({
                "code": "citation_id_duplicate",
                "citation_id": citation_id
            })
            continue
        citation_by_id[citation_id] = citation

    valid_citations = set()

    for citation_id, citation in citation_by_id.items():
        document_id = citation.get("document_id")
        document = documents.get(document_id)

        if document is None:
            errors.append({
                "code": "document_missing",
                "citation_id": citation_id
            })
            continue

        if citation.get("document_version") != document.get("version"):
            errors.append({
                "code": "document_version_mismatch",
                "citation_id": citation_id
            })
            continue

        start = citation.get("start")
        end = citation.get("end")
        text = document.get("text", "")

        if (
            not isinstance(start, int)
            or isinstance(start, bool)
            or not isinstance(end, int)
            or isinstance(end, bool)
            or start < 0
            or end <= start
            or end > len(text)
        ):
            errors.append({
                "code": "range_invalid",
                "citation_id": citation_id
            })
            continue

        source_fragment = text[start:end]
        if source_fragment != citation.get("quote"):
            errors.append({
                "code": "quote_mismatch",
                "citation_id": citation_id,
                "expected": source_fragment,
                "received": citation.get("quote")
            })
            continue

        valid_citations.add(citation_id)

    claim_results = []
    for claim in claims:
        claim_id = claim.get("id")
        references = claim.get("citation_ids", [])
        missing = [
            item for item in references
            if item not in citation_by_id
        ]
        invalid = [
            item for item in references
            if item in citation_by_id and item not in valid_citations
        ]

        if not references:
            status = "unsupported"
        elif missing or invalid:
            status = "invalid_reference"
        else:
            status = "requires_entailment_check"

        claim_results.append({
            "claim_id": claim_id,
            "status": status,
            "missing_citations": missing,
            "invalid_citations": invalid
        })

    return {
        "ok": not errors and all(
            item["status"] == "requires_entailment_check"
            for item in claim_results
        ),
        "errors": errors,
        "claims": claim_results
    }

if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(
            "usage: python3 verify.py RESPONSE DOCUMENTS"
        )

    result = verify(
        load_json(sys.argv[1]),
        load_json(sys.argv[2])
    )
    print(json.dumps(result, ensure_ascii=False, indent=2))
    raise SystemExit(0 if result["ok"] else 1)
