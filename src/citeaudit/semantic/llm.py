"""The ``llm`` judge: any OpenAI-compatible chat-completions endpoint (hosted,
vLLM, llama.cpp, Ollama), temperature 0, the seed's instruction, JSON output
validated against a schema.

Invalid output is asked for again, 429 waits for ``Retry-After`` (bounded),
5xx and timeouts are retried; when the attempts run out the verdict is
``unknown`` with the reason in its signals, never a guess.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from typing import Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citeaudit.semantic.base import BaseJudge
from citeaudit.semantic.interface import Fragment, JudgeIdentity, Verdict

__all__ = ["API_KEY_ENV", "INSTRUCTION", "PROMPT_VERSION", "LlmJudge"]

PROMPT_VERSION = "llm-1"
API_KEY_ENV = "CITEAUDIT_LLM_API_KEY"
INSTRUCTION = (
    "Judge only whether the fragments logically support the claim. Do not add to the evidence any "
    "knowledge from outside the fragments. Return one class: entailed, contradicted, insufficient or "
    "unknown. For entailed every essential part must be supported, including numbers, units, "
    "negations, conditions and scope. entailed: the fragments directly support the whole claim; "
    "contradicted: at least one fragment plainly contradicts it; insufficient: the topic matches but "
    "the evidence is incomplete; unknown: the input is damaged, ambiguous or cannot be judged with "
    "confidence. Answer with one JSON object only: "
    '{"verdict": "...", "evidence_citation_ids": ["..."], "unsupported_parts": ["..."], '
    '"confidence": 0.0}'
)
_MAX_RETRY_AFTER_S = 30.0


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")

    verdict: Literal["entailed", "contradicted", "insufficient", "unknown"]
    evidence_citation_ids: list[str] = Field(default_factory=list)
    unsupported_parts: list[str] = Field(default_factory=list)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)


class LlmJudge(BaseJudge):
    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        attempts: int = 3,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
        max_answer_bytes: int = 8 * 1024 * 1024,  # a verdict is a few hundred bytes
    ) -> None:
        key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx.Client(
            base_url=base_url.rstrip("/") + "/", headers=headers, timeout=timeout_s, transport=transport
        )
        self._model = model
        self._attempts = attempts
        self._max_answer_bytes = max_answer_bytes
        self._sleep = sleep
        super().__init__(JudgeIdentity("llm", model, PROMPT_VERSION))

    def close(self) -> None:
        self._client.close()

    def _request(self, claim: str, fragments: Sequence[Fragment]) -> dict[str, object]:
        evidence = [{"citation_id": f.citation_id, "text": f.text} for f in fragments]
        user = json.dumps({"claim": claim, "fragments": evidence}, ensure_ascii=False)
        return {
            "model": self._model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [{"role": "system", "content": INSTRUCTION}, {"role": "user", "content": user}],
        }

    def _bounded_body(self, response: httpx.Response) -> bytes:
        """The answer, read only up to ``max_answer_bytes`` (an endpoint could fill the memory)."""
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self._max_answer_bytes:
                raise _TooLarge
            chunks.append(chunk)
        return b"".join(chunks)

    def _parse(self, body: object, cited: set[str]) -> _Answer | None:
        try:
            content = body["choices"][0]["message"]["content"]  # type: ignore[index]
            answer = _Answer.model_validate(json.loads(content))
        except (KeyError, IndexError, TypeError, ValueError, ValidationError):
            return None
        if not set(answer.evidence_citation_ids) <= cited:
            return None  # it relied on a citation it was never shown
        return answer

    def judge(self, claim: str, fragments: Sequence[Fragment]) -> Verdict:
        if not fragments:
            return Verdict("insufficient", self._identity, signals=("S_NO_FRAGMENT",))
        payload = self._request(claim, fragments)
        cited = {f.citation_id for f in fragments}
        reason, wait = "J_NO_ATTEMPT", 0.0
        for attempt in range(self._attempts):
            if wait:
                self._sleep(wait)  # only between attempts, never after the last
            wait = 0.0
            try:
                with self._client.stream("POST", "chat/completions", json=payload) as response:
                    status, retry_after = response.status_code, _retry_after(response, attempt)
                    body = self._bounded_body(response) if status == 200 else b""
            except httpx.TransportError:
                reason, wait = "J_TIMEOUT_OR_CONNECTION", min(2.0**attempt, _MAX_RETRY_AFTER_S)
                continue
            except _TooLarge:
                reason = "J_ANSWER_TOO_LARGE"
                break  # not a verdict, and asking again would read as much
            if status == 429 or status >= 500:
                reason, wait = f"J_HTTP_{status}", retry_after
                continue
            if status != 200:
                reason = f"J_HTTP_{status}"
                break  # 4xx other than 429: asking again will not help
            try:
                answer = self._parse(json.loads(body), cited)
            except ValueError:
                answer = None
            if answer is None:
                reason = "J_INVALID_OUTPUT"
                continue
            label = answer.verdict
            if label == "entailed" and answer.unsupported_parts:
                label = "insufficient"  # a claim supported only in part is never entailed
            return Verdict(
                label,
                self._identity,
                tuple(sorted(set(answer.evidence_citation_ids))),
                tuple(answer.unsupported_parts),
                answer.confidence,
            )
        return Verdict("unknown", self._identity, signals=(reason,))


class _TooLarge(Exception):
    pass


def _retry_after(response: httpx.Response, attempt: int) -> float:
    try:
        wait = float(response.headers.get("Retry-After", ""))
    except ValueError:
        wait = 2.0**attempt
    return max(0.0, min(wait, _MAX_RETRY_AFTER_S))
