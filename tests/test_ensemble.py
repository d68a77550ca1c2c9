"""Several exports answer together (serving/ensemble.py): the answer most of them give wins."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from script_loader import load_script
from test_export_roundtrip import make_run

from nmt_sparql.cli import main
from nmt_sparql.serving.ensemble import Ensemble, decided, vote
from nmt_sparql.serving.export import export_model
from nmt_sparql.serving.server import create_app
from nmt_sparql.serving.translator import Translation, Translator

QUESTION = "Who is the spouse of alfred nobel?"


def _select(*values: str) -> dict:
    return {"kind": "select", "variables": ["x"], "rows": [[v] for v in values]}


def test_the_answer_most_members_give_wins_and_a_tie_goes_to_the_first() -> None:
    assert vote([_select("a"), _select("b"), _select("b")]) == (1, 2)
    assert vote([_select("a", "b"), _select("b", "a", "a"), _select("c")]) == (0, 2)  # a set, as the metric
    assert vote([_select("a"), _select("b")]) == (0, 1)
    assert vote([{"kind": "ask", "boolean": False}, {"kind": "ask", "boolean": True}] * 2) == (0, 2)


def test_empty_and_failed_answers_do_not_vote() -> None:
    failed = {"kind": "error", "error": "timeout"}
    assert vote([None, _select(), failed, _select("a")]) == (3, 1)
    assert vote([None, failed, _select()]) == (0, 0)


def test_a_question_is_decided_once_the_members_left_cannot_change_its_winner() -> None:
    assert decided([_select("a"), _select("a")], remaining=1)
    assert not decided([_select("a"), _select("b")], remaining=1)
    assert not decided([_select("a")], remaining=2)
    assert decided([_select("a"), _select("a"), _select("b")], remaining=0)
    assert not decided([None, _select()], remaining=1)  # no vote yet
    assert decided([_select("a"), _select("a"), None], remaining=1)


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ensemble")
    return export_model(make_run(root / "run", index=True), root / "export")


def test_members_outvote_the_first(export: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    members = [Translator.from_pretrained(export, kb="embedded:bundled") for _ in range(3)]
    ensemble = Ensemble(members)
    assert all(member.kb is ensemble.kb for member in members)
    agreed = _select("http://nmt-sparql.org/resource/Bertha_von_Suttner")

    def answering(answer: dict, sparql: str):
        def translate(questions, **_):
            return [Translation(q, q, [], sparql, answer=answer) for q in questions]

        return translate

    monkeypatch.setattr(members[0], "translate", answering(_select("wrong"), "first"))
    monkeypatch.setattr(members[1], "translate", answering(agreed, "second"))
    monkeypatch.setattr(members[2], "translate", answering(agreed, "third"))
    (result,) = ensemble.translate([QUESTION], explain=True)
    assert (result.sparql, result.answer) == ("second", agreed)
    assert result.ensemble == {"member": 1, "votes": 2, "asked": 3, "members": 3}
    assert result.to_json()["ensemble"] == result.ensemble
    assert result.explanation.startswith("Not explained")  # by the chosen member: "second" is no query
    ensemble.close()


def test_members_after_a_decided_vote_are_not_asked(export: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    members = [Translator.from_pretrained(export, kb="embedded:bundled") for _ in range(3)]
    ensemble = Ensemble(members)
    asked: list[list[str]] = []

    def answering(answers: dict[str, dict]):
        def translate(questions, **_):
            asked.append(list(questions))
            return [Translation(q, q, [], q, answer=answers[q]) for q in questions]

        return translate

    first, second = ("agreed", "split"), {"agreed": _select("a"), "split": _select("b")}
    monkeypatch.setattr(members[0], "translate", answering({q: _select("a") for q in first}))
    monkeypatch.setattr(members[1], "translate", answering(second))
    monkeypatch.setattr(members[2], "translate", answering({"split": _select("b")}))
    results = ensemble.translate(list(first))
    assert asked == [["agreed", "split"], ["agreed", "split"], ["split"]]  # the third only where two disagree
    assert [r.ensemble for r in results] == [
        {"member": 0, "votes": 2, "asked": 2, "members": 3},
        {"member": 1, "votes": 2, "asked": 3, "members": 3},
    ]
    ensemble.close()


def test_an_ensemble_needs_a_kb_and_two_members(export: Path) -> None:
    with pytest.raises(ValueError, match="two exports or more"):
        Ensemble([Translator.from_pretrained(export, kb="embedded:bundled")])
    with pytest.raises(ValueError, match="give it a KB"):
        Ensemble([Translator.from_pretrained(export), Translator.from_pretrained(export)])


def test_cli_translate_with_a_list_of_exports(export: Path, capsys: pytest.CaptureFixture) -> None:
    main(["translate", f"model=[{export},{export}]", f"question={QUESTION}", "kb=embedded:bundled"])
    (line,) = [json.loads(text) for text in capsys.readouterr().out.splitlines() if text.strip()]
    alone = Translator.from_pretrained(export, kb="embedded:bundled").translate(
        [QUESTION], repair=True, beam=5
    )
    assert line["sparql"] == alone[0].sparql  # two copies of one model agree with it
    assert line["ensemble"]["member"] == 0 and line["ensemble"]["members"] == 2
    assert line["ensemble"]["votes"] in (0, 2)


def test_cli_translate_needs_two_exports(export: Path, capsys: pytest.CaptureFixture) -> None:
    for listed in ("[]", f"[{export}]"):
        with pytest.raises(SystemExit):
            main(["translate", f"model={listed}", f"question={QUESTION}", "kb=embedded:bundled"])
        assert "two exports or more" in capsys.readouterr().err


def test_serve_with_a_list_of_exports_needs_a_kb(export: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["serve", f"model=[{export},{export}]"])
    assert "give it a KB" in capsys.readouterr().err


def test_served_exports_answer_together_over_http(export: Path) -> None:
    ensemble = Ensemble([Translator.from_pretrained(export, kb="embedded:bundled") for _ in range(2)])
    with TestClient(create_app(ensemble)) as client:
        response = client.post("/translate", json={"questions": [QUESTION], "explain": True})
        assert response.status_code == 200
        (result,) = response.json()["results"]
        health = client.get("/health").json()
    (expected,) = ensemble.translate([QUESTION])
    assert result["sparql"] == expected.sparql and result["answer"] == expected.answer  # answers come always
    assert result["ensemble"]["members"] == 2 and result["explanation"]
    assert health["members"] == 2 and health["model"].count("+") == 1
    ensemble.close()


def test_a_slow_ensemble_batch_does_not_hold_up_the_next(
    export: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ensemble = Ensemble([Translator.from_pretrained(export, kb="embedded:bundled") for _ in range(2)])
    release = threading.Event()

    def translate(questions, **_):
        if questions == ["slow"]:
            release.wait(30)
        return [Translation(q, q, [], q, answer=_select(q)) for q in questions]

    for member in ensemble.members:
        monkeypatch.setattr(member, "translate", translate)

    async def ask_both() -> list[str]:
        app = create_app(ensemble, max_wait_ms=1)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
                slow = asyncio.create_task(client.post("/translate", json={"questions": ["slow"]}))
                await asyncio.sleep(0.2)  # the slow batch is being answered
                fast = await asyncio.wait_for(client.post("/translate", json={"questions": ["fast"]}), 10)
                release.set()
                return [fast.json()["results"][0]["sparql"], (await slow).json()["results"][0]["sparql"]]

    assert asyncio.run(ask_both()) == ["fast", "slow"]
    ensemble.close()


def test_eval_translate_measures_exports_together(export: Path, tmp_path: Path) -> None:
    head = "PREFIX ont: <http://nmt-sparql.org/ontology/> PREFIX res: <http://nmt-sparql.org/resource/> "
    questions = tmp_path / "questions.jsonl"
    record = {
        "question": QUESTION,
        "query": head + "select distinct ?x where { res:Alfred_Nobel ont:spouse ?x }",
    }
    questions.write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = tmp_path / "rows.jsonl"
    assert (
        load_script("eval_translate").main(
            [str(export), str(questions), "--with", str(export), "--out", str(out)]
        )
        == 0
    )
    (row,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert row["ensemble"]["members"] == 2 and row["question"] == QUESTION
