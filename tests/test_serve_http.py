"""`serve`: the HTTP API answers over loopback, rejects bad input with 4xx, and batches concurrent requests."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient
from loopback_listener import app_on_loopback
from test_export_roundtrip import make_run

from nmt_sparql.serving.export import export_model
from nmt_sparql.serving.server import Limits, create_app
from nmt_sparql.serving.translator import Translator

QUESTION = "What is the birth date of Alfred Nobel?"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Translator]]:
    root = tmp_path_factory.mktemp("serve")
    translator = Translator.from_pretrained(
        export_model(make_run(root / "run", index=True), root / "export"), kb="embedded:bundled"
    )
    app = create_app(translator, Limits(max_questions=4, max_question_chars=80, max_beam=4), max_wait_ms=50)
    with app_on_loopback(app) as url:
        yield url, translator
    translator.close()


def test_translate_over_http_matches_the_python_api(server: tuple[str, Translator]) -> None:
    url, translator = server
    response = httpx.post(
        f"{url}/translate", json={"questions": [QUESTION], "beam": 2, "execute": True}, timeout=30
    )
    assert response.status_code == 200
    (result,) = response.json()["results"]
    expected = translator.translate([QUESTION], beam=2)[0]
    assert result["sparql"] == expected.sparql
    assert result["input"] == "What is the «ont:birthDate» of «res:Alfred_Nobel» ?"
    assert result["answer"]["kind"] in ("select", "ask", "error")
    health = httpx.get(f"{url}/health", timeout=10).json()
    assert health["status"] == "ok" and health["kb"] is True
    schema = httpx.get(f"{url}/openapi.json", timeout=10).json()
    assert "/translate" in schema["paths"] and "/health" in schema["paths"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"questions": []}, "questions"),
        ({"questions": ["   "]}, "questions"),
        ({"questions": ["x" * 81]}, "questions"),
        ({"questions": ["a", "b", "c", "d", "e"]}, "questions"),
        ({"questions": [QUESTION], "beam": 0}, "beam"),
        ({"questions": [QUESTION], "beam": 5}, "beam"),
        ({"questions": QUESTION}, "questions"),
        ({"questions": [QUESTION], "update": "DROP ALL"}, "update"),
    ],
)
def test_bad_requests_get_a_422_naming_the_field(
    server: tuple[str, Translator], body: dict, field: str
) -> None:
    response = httpx.post(f"{server[0]}/translate", json=body, timeout=10)
    assert response.status_code == 422
    assert field in [part for error in response.json()["detail"] for part in error["loc"]]


def test_sixteen_concurrent_requests_are_all_answered_in_shared_batches(
    server: tuple[str, Translator],
) -> None:
    url, _ = server
    questions = [f"Who is the spouse of Alfred Nobel {i}?" for i in range(16)]
    batcher_before = httpx.get(f"{url}/health", timeout=10).json()

    async def ask_all() -> list[httpx.Response]:
        async with httpx.AsyncClient(timeout=60) as client:
            return await asyncio.gather(
                *(client.post(f"{url}/translate", json={"questions": [q]}) for q in questions)
            )

    responses = asyncio.run(ask_all())
    assert [r.status_code for r in responses] == [200] * 16
    answered = [r.json()["results"][0] for r in responses]
    assert [a["question"] for a in answered] == questions  # each request gets its own result back
    assert all(isinstance(a["sparql"], str) and a["kb_elements"] is not None for a in answered)
    health = httpx.get(f"{url}/health", timeout=10).json()
    assert health["requests"] - batcher_before["requests"] == 16
    assert health["batches"] - batcher_before["batches"] < 16
    assert health["max_requests_per_batch"] > 1


def test_execute_without_a_configured_kb_is_a_400(server: tuple[str, Translator]) -> None:
    without_kb = copy.copy(server[1])
    without_kb.kb = None
    with TestClient(create_app(without_kb)) as client:
        response = client.post("/translate", json={"questions": [QUESTION], "execute": True})
        assert response.status_code == 400 and "no KB configured" in response.json()["detail"]
        assert client.post("/translate", json={"questions": [QUESTION]}).status_code == 200
