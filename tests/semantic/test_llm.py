from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeaudit.semantic import Fragment, make_judge
from citeaudit.semantic.cache import CachedJudge
from citeaudit.semantic.llm import INSTRUCTION, LlmJudge
from tests.semantic.chat_server import Reply, answer, chat_server

FRAGMENTS = [Fragment("q1", "Mortality fell by 30% in the treated group."), Fragment("q2", "n = 1,200.")]
CLAIM = "Treatment cut mortality by 30%."


def judge_for(url: str, waits: list[float], **kw: object) -> LlmJudge:
    return LlmJudge(url, "tiny-judge", api_key="k", sleep=waits.append, **kw)  # type: ignore[arg-type]


def test_a_valid_answer_and_what_was_sent() -> None:
    with chat_server([answer("entailed", ["q1"], confidence=0.97)]) as server:
        verdict = judge_for(server.url, []).judge(CLAIM, FRAGMENTS)
    assert (verdict.label, verdict.relied_on, verdict.confidence) == ("entailed", ("q1",), 0.97)
    assert (verdict.judge.backend, verdict.judge.model, verdict.judge.prompt_version) == (
        "llm",
        "tiny-judge",
        "llm-1",
    )
    sent = server.requests[0]
    assert (sent["_path"], sent["_auth"], sent["temperature"]) == ("/v1/chat/completions", "Bearer k", 0)
    assert sent["messages"][0] == {"role": "system", "content": INSTRUCTION}
    assert '"claim": "Treatment cut mortality by 30%."' in sent["messages"][1]["content"]
    assert "q2" in sent["messages"][1]["content"]  # only the cited fragments, all of them


def test_partly_supported_is_never_entailed() -> None:
    with chat_server([answer("entailed", ["q1"], unsupported=["in all patients"])]) as server:
        verdict = judge_for(server.url, []).judge(CLAIM, FRAGMENTS)
    assert (verdict.label, verdict.unsupported) == ("insufficient", ("in all patients",))


def test_invalid_output_is_asked_again_then_unknown() -> None:
    bad = [
        Reply(content="The claim is supported."),
        Reply(content='{"verdict": "true"}'),
        answer("entailed", ["q9"]),
    ]  # fmt: skip  (q9 was never shown)
    with chat_server(bad) as server:
        verdict = judge_for(server.url, []).judge(CLAIM, FRAGMENTS)
    assert (verdict.label, verdict.signals, len(server.requests)) == ("unknown", ("J_INVALID_OUTPUT",), 3)
    with chat_server([Reply(content="{oops"), answer("contradicted", ["q2"])]) as server:
        verdict = judge_for(server.url, []).judge(CLAIM, FRAGMENTS)
    assert (verdict.label, verdict.relied_on, len(server.requests)) == ("contradicted", ("q2",), 2)


def test_429_waits_for_retry_after_and_5xx_is_retried() -> None:
    waits: list[float] = []
    script = [Reply(429, headers={"Retry-After": "7"}), Reply(503), answer("insufficient", ["q1"])]
    with chat_server(script) as server:
        verdict = judge_for(server.url, waits).judge(CLAIM, FRAGMENTS)
    assert verdict.label == "insufficient"
    assert waits == [7.0, 2.0]  # Retry-After honoured; then backoff 2**1
    waits.clear()
    with chat_server([Reply(429, headers={"Retry-After": "3600"})] * 3) as server:
        verdict = judge_for(server.url, waits).judge(CLAIM, FRAGMENTS)
    assert (verdict.label, verdict.signals, waits) == (
        "unknown",
        ("J_HTTP_429",),
        [30.0, 30.0],
    )  # none after the last


def test_a_timeout_is_unknown_not_a_guess() -> None:
    with chat_server([Reply(delay_s=1.0, content="{}")] * 2) as server:
        verdict = judge_for(server.url, [], timeout_s=0.2, attempts=2).judge(CLAIM, FRAGMENTS)
    assert (verdict.label, verdict.signals) == ("unknown", ("J_TIMEOUT_OR_CONNECTION",))


def test_a_client_error_is_not_retried() -> None:
    with chat_server([Reply(401), answer("entailed", ["q1"])]) as server:
        verdict = judge_for(server.url, []).judge(CLAIM, FRAGMENTS)
    assert (verdict.label, verdict.signals, len(server.requests)) == ("unknown", ("J_HTTP_401",), 1)


def test_an_answer_over_the_size_limit_is_unknown_and_not_asked_again() -> None:
    """Read only up to the bound: an endpoint could otherwise fill the memory."""
    with chat_server([Reply(content="x" * 5000), answer("entailed", ["q1"])]) as server:
        verdict = judge_for(server.url, [], max_answer_bytes=1000).judge(CLAIM, FRAGMENTS)
    assert (verdict.label, verdict.signals, len(server.requests)) == ("unknown", ("J_ANSWER_TOO_LARGE",), 1)


def test_verdicts_are_cached_by_claim_fragments_and_judge(tmp_path: Path) -> None:
    with chat_server([answer("contradicted", ["q1"])] * 2) as server:
        cached = make_judge(f"llm:tiny-judge@{server.url}", tmp_path)
        first = cached.judge(CLAIM, FRAGMENTS)
        again = cached.judge(CLAIM, FRAGMENTS)
        assert len(server.requests) == 1  # the rerun asked nothing
        assert again == first
        other = CachedJudge(judge_for(server.url, [], attempts=1), tmp_path).judge(CLAIM + " ", FRAGMENTS)
        assert (other.label, len(server.requests)) == ("contradicted", 2)  # another claim: asked
    files = sorted(p.name for p in tmp_path.rglob("*.json"))
    assert len(files) == 2


def test_an_unavailable_backend_is_not_cached(tmp_path: Path) -> None:
    with chat_server([Reply(503), answer("entailed", ["q1"])]) as server:
        judge = CachedJudge(judge_for(server.url, [], attempts=1), tmp_path)
        assert judge.judge(CLAIM, FRAGMENTS).label == "unknown"
        assert judge.judge(CLAIM, FRAGMENTS).label == "entailed"


@pytest.mark.parametrize(
    "garbage",
    [
        b"{not json",
        b"\xff\xfe",
        b'{"label": "maybe", "relied_on": [], "unsupported": [], "confidence": null, "signals": []}',
        b"[]",
    ],
)
def test_a_corrupt_cache_entry_is_never_trusted(tmp_path: Path, garbage: bytes) -> None:
    with chat_server([answer("contradicted", ["q1"])] * 2) as server:
        cached = make_judge(f"llm:tiny-judge@{server.url}", tmp_path)
        assert cached.judge(CLAIM, FRAGMENTS).label == "contradicted"
        (entry,) = tmp_path.rglob("*.json")
        entry.write_bytes(garbage)
        assert cached.judge(CLAIM, FRAGMENTS).label == "contradicted"  # asked again
        assert len(server.requests) == 2
        assert json.loads(entry.read_text("utf-8"))["label"] == "contradicted"  # and rewritten
