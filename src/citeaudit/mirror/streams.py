"""The names of DBLP's venues as its own dump writes them. DBLP groups every record in a *stream*
named by its key (``conf/nips/VaswaniSPUJGKP17`` is in ``conf/nips``, ``journals/jmlr/…`` in
``journals/jmlr``); the records of one stream use several names over the years (``NIPS``,
``NeurIPS``), and the titles of its ``<proceedings>`` records give the venue's full name
(``Advances in Neural Information Processing Systems 30: Annual Conference on Neural Information
Processing Systems 2017, …``). The mirror keeps the most used names of every stream, and a DBLP
record it answers with holds the other names of its stream beside its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["STREAM_NAMES", "is_track", "proceedings_names", "stream", "stream_names"]

#: The most used names of one stream that the mirror keeps (a stream's names beyond them are rare forms).
STREAM_NAMES = 20
_STREAM = re.compile(r"^(?:conf|journals)/[^/]+(?=/)")
# The part of a proceedings' title that names its venue holds one of these words ("Proceedings of
# the 34th International Conference on Machine Learning"); "Machine Learning" in "Machine
# Learning, Proceedings of the Seventh International Conference on Machine Learning" (ICML 1990)
# names a journal too, and is no name of the stream.
_VENUE_WORD = re.compile(r"\b(?:conference|symposium|workshop|meeting|congress|colloquium)\b", re.I)
_NUMBERS = re.compile(
    r"\b(?:\d+(?:st|nd|rd|th)?|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
    r"eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|"
    r"twentieth)\b",
    re.I,
)
# A name of a part of a conference that is not its main track (``CVPR Workshops``, ``ACL
# (Findings)``, ``ICLR (Workshop)``, ``… Workshop Track Proceedings``, ``WWW (Companion Volume)``):
# no other name of the conference, nor the conference one of its names.
_TRACK = re.compile(
    r"\b(?:workshops?|findings|companion|demos?|demonstrations?|student|doctoral|tutorials?)\b", re.I
)
_PROCEEDINGS_OF = re.compile(r"^proceedings\s+of\s+(?:the\s+)?", re.I)


def stream(key: str) -> str | None:
    """The stream a DBLP key is in (``conf/nips/VaswaniSPUJGKP17`` → ``conf/nips``): a conference
    or a journal; ``None`` for any other key (books, theses, series, home pages)."""
    m = _STREAM.match(key)
    return m.group(0) if m else None


def is_track(name: str) -> bool:
    """Whether a venue's name names a part of a conference that is not its main track (a
    workshop, findings, a companion volume, demonstrations, a student or doctoral session,
    tutorials)."""
    return _TRACK.search(name) is not None


def proceedings_names(title: str) -> list[str]:
    """The venue's names in the title of its proceedings, its numbers (years, ordinals, volume)
    left out, so that every year's proceedings give the same names: ``Advances in Neural
    Information Processing Systems 30: Annual Conference on Neural Information Processing Systems
    2017, December 4-9, 2017, Long Beach, CA, USA`` → the part before the first comma, the part
    of it before a colon (``Advances in Neural Information Processing Systems``); ``Proceedings of
    the 26th ACM International Conference on …`` → it and ``ACM International Conference on …``.
    Only a part with a word of a meeting (``Conference``, ``Symposium``…) names the venue."""
    part = title.split(",", 1)[0]
    if not _VENUE_WORD.search(part):
        return []
    names: list[str] = []
    for text in (part, part.split(":", 1)[0]):
        name = " ".join(_NUMBERS.sub(" ", text).split()).replace(" :", ":").strip(" :-")
        for form in (name, _PROCEEDINGS_OF.sub("", name)):
            if len(form) > 3 and form not in names:
                names.append(form)
    return names


def stream_names(
    used: Iterable[tuple[str, int, str | None, str | None, int | None, int]],
) -> list[tuple[str, int, str, int]]:
    """The names of every stream, ``(stream, year, name, count)`` sorted, from the mirror's DBLP
    records counted by ``(key's stream, whether a proceedings, container, proceedings title,
    proceedings year)``.

    A name of a part that is not the main track (:func:`is_track`) is left out. Year 0: the names
    of every year, at most :data:`STREAM_NAMES` a stream (the most used; of
    equal use, the first by name). A journal's names are its articles' ``journal`` (a workshop's
    proceedings that DBLP keeps in CoRR's stream names no journal); a conference's, the
    ``booktitle`` of its papers and proceedings and the names in its proceedings' titles
    (:func:`proceedings_names`). A year: the whole titles of that year's proceedings (as DBLP's
    BibTeX gives them to a paper's ``booktitle``), at most :data:`STREAM_NAMES` (the first by
    name)."""
    counts: dict[tuple[str, str], int] = {}
    titles: dict[tuple[str, int], set[str]] = {}
    for name_of, proceedings, container, title, year, count in used:
        journal = name_of.startswith("journals/")
        if journal and proceedings:
            continue
        names = [container] if container else []
        if proceedings and title:
            names += proceedings_names(title)
            if year and not is_track(title):
                titles.setdefault((name_of, year), set()).add(title)
        for name in names:
            if not is_track(name):
                counts[name_of, name] = counts.get((name_of, name), 0) + count
    by_stream: dict[str, list[tuple[int, str]]] = {}
    for (name_of, name), count in counts.items():
        by_stream.setdefault(name_of, []).append((-count, name))
    out = [
        (name_of, 0, name, -neg)
        for name_of, ranked in by_stream.items()
        for neg, name in sorted(ranked)[:STREAM_NAMES]
    ]
    out += [
        (name_of, year, title, 1)
        for (name_of, year), some in titles.items()
        for title in sorted(some)[:STREAM_NAMES]
    ]
    return sorted(out)
