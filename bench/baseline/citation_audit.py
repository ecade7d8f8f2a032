#!/usr/bin/env python3
# Baseline for the benchmarks: the audit script of the source article
# "Детерминированная проверка ссылок в исследовательском агенте" (seed 000,
# step 3, "citation_audit.py"), copied verbatim apart from this header.
# It is run, never imported by citeaudit, and is not linted.
"""Детерминированный аудит ссылок исследовательского агента."""
import argparse, hashlib, json, pathlib, re, sys, unicodedata
import urllib.error, urllib.parse, urllib.request

DOI_RE = re.compile(r"^10\.\d{4,9}/\S+$")
NUM_RE = re.compile(r"\d+(?:[.,]\d+)?")
MIN_QUOTE = 30


def norm(text):
    text = unicodedata.normalize("NFKC", text or "").casefold()
    text = re.sub(r"[\u2010-\u2015]", "-", text)
    text = re.sub(r"[\"'«»“”„‘’]", "", text)
    return re.sub(r"\s+", " ", text).strip()


def norm_doi(doi):
    doi = (doi or "").strip().lower()
    return re.sub(r"^(https?://(dx\.)?doi\.org/|doi:\s*)", "", doi)


def slug(doi):
    return re.sub(r"[^a-z0-9._-]", "_", doi)


def numbers(text):
    return {n.replace(",", ".") for n in NUM_RE.findall(text or "")}


def fetch_crossref(doi, mailto):
    url = "https://api.crossref.org/works/" + urllib.parse.quote(doi, safe="")
    if mailto:
        url += "?mailto=" + urllib.parse.quote(mailto)
    req = urllib.request.Request(url, headers={"User-Agent": "citation-audit/0.1"})
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            msg = json.load(resp)["message"]
    except urllib.error.HTTPError as err:
        if err.code == 404:
            return {"status": "not_found"}
        raise  # временные сбои не кэшируем
    parts = (msg.get("issued") or {}).get("date-parts") or [[None]]
    return {
        "status": "found",
        "title": (msg.get("title") or [""])[0],
        "year": parts[0][0],
        "authors": [a.get("family", "") for a in msg.get("author", [])],
    }


def resolve(doi, args):
    path = args.cache / f"{slug(doi)}.json"
    if path.exists():
        return json.loads(path.read_text("utf-8"))
    if args.offline:
        return {"status": "not_cached"}
    record = fetch_crossref(doi, args.mailto)
    args.cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, ensure_ascii=False, sort_keys=True, indent=2), "utf-8")
    return record


def check_citation(claim_text, cit, args):
    doi = norm_doi(cit.get("doi"))
    if not DOI_RE.match(doi):
        return ["E_DOI_SYNTAX"]
    rec = resolve(doi, args)
    if rec["status"] == "not_found":
        return ["E_DOI_NOT_FOUND"]
    if rec["status"] == "not_cached":
        return ["E_NOT_CACHED"]

    errors = []
    if norm(cit.get("title")) != norm(rec["title"]):
        errors.append("E_TITLE_MISMATCH")
    if str(cit.get("year")) != str(rec["year"]):
        errors.append("E_YEAR_MISMATCH")
    if norm(cit.get("first_author")) not in [norm(a) for a in rec["authors"]]:
        errors.append("E_AUTHOR_MISMATCH")

    quote = norm(cit.get("quote"))
    snapshot = args.sources / f"{slug(doi)}.txt"
    if len(quote) < MIN_QUOTE:
        errors.append("E_QUOTE_TOO_SHORT")
    elif not snapshot.exists():
        errors.append("E_NO_SNAPSHOT")
    elif quote not in norm(snapshot.read_text("utf-8")):
        errors.append("E_QUOTE_NOT_FOUND")

    missing = sorted(numbers(claim_text) - numbers(cit.get("quote")))
    if missing:
        errors.append("E_NUMBER_UNSUPPORTED:" + ",".join(missing))
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("claims", type=pathlib.Path)
    ap.add_argument("--cache", type=pathlib.Path, default=pathlib.Path("cache"))
    ap.add_argument("--sources", type=pathlib.Path, default=pathlib.Path("sources"))
    ap.add_argument("--offline", action="store_true")
    ap.add_argument("--mailto", default="")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("report.json"))
    args = ap.parse_args()

    raw = args.claims.read_bytes()
    data = json.loads(raw)
    results = []
    for claim in sorted(data["claims"], key=lambda c: c["id"]):
        cits = claim.get("citations") or []
        if not cits:
            results.append({"claim": claim["id"], "doi": None, "errors": ["E_UNCITED"]})
        for cit in cits:
            results.append({
                "claim": claim["id"],
                "doi": norm_doi(cit.get("doi")),
                "errors": check_citation(claim["text"], cit, args),
            })

    failed = [r for r in results if r["errors"]]
    report = {
        "input_sha256": hashlib.sha256(raw).hexdigest(),
        "checked": len(results),
        "failed": len(failed),
        "results": results,
    }
    args.out.write_text(
        json.dumps(report, ensure_ascii=False, sort_keys=True, indent=2) + "\n", "utf-8")
    print(f"checked={len(results)} failed={len(failed)} report={args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
