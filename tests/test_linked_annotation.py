"""`annotation=linked` and the one annotation path: what training writes is what inference reads."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pyoxigraph as ox
import pytest
from omegaconf import OmegaConf
from test_export_roundtrip import make_run

from nmt_sparql.annotation.annotate import SEP
from nmt_sparql.annotation.annotator import Annotator
from nmt_sparql.annotation.linking.index import Entry, KBIndex
from nmt_sparql.annotation.linking.sources import entries_from_store
from nmt_sparql.annotation.linking.wordforms import with_word_forms
from nmt_sparql.core.record import Example, KBElement
from nmt_sparql.data.fingerprint import CODE_FILE, code_hash, record_code, recorded_code
from nmt_sparql.data.generate import bundled_kb_path
from nmt_sparql.preparation.linking_index import INDEX_FILE, copy_index, dataset_index
from nmt_sparql.preparation.prepare import prepare
from nmt_sparql.serving.export import export_model
from nmt_sparql.serving.translator import Translator
from nmt_sparql.sparql.prefixes import prefix_map

CONF = Path(__file__).resolve().parents[1] / "conf"
_PREFIXES = "PREFIX ont: <http://nmt-sparql.org/ontology/> PREFIX res: <http://nmt-sparql.org/resource/> "


@pytest.fixture(scope="module")
def bundled_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The index of the bundled KB alone (no learned lexicon)."""
    store = ox.Store()
    store.bulk_load(path=str(bundled_kb_path()), format=ox.RdfFormat.TURTLE)
    path = tmp_path_factory.mktemp("index") / INDEX_FILE
    KBIndex.build(path, entries_from_store(store, prefix_map("bundled"))).close()
    return path


@pytest.fixture(scope="module")
def tiny_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny") / INDEX_FILE
    entries = [
        Entry("res:Alien", "entity", ("Alien",), 3.0),
        Entry("res:Ridley_Scott", "entity", ("Ridley Scott",), 2.0),
        Entry("ont:director", "property", ("director",), 5.0),
        Entry("ont:Film", "class", ("film",), 4.0),
    ]
    KBIndex.build(path, entries).close()
    return path


@pytest.fixture(scope="module")
def crowded_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four mentions; "Alien" names three elements, "director" a class and a property."""
    path = tmp_path_factory.mktemp("crowded") / INDEX_FILE
    entries = [
        Entry("res:Alien", "entity", ("Alien",), 3.0),
        Entry("res:Alien_song", "entity", ("Alien",), 2.0),
        Entry("res:Alien_novel", "entity", ("Alien",), 1.0),
        Entry("res:Ridley_Scott", "entity", ("Ridley Scott",), 2.0),
        Entry("ont:director", "property", ("director",), 5.0),
        Entry("ont:Director", "class", ("director",), 1.0),
        Entry("ont:Film", "class", ("film",), 4.0),
    ]
    KBIndex.build(path, entries).close()
    return path


_CROWDED = "Did Ridley Scott direct the film Alien, as director?"


def _units(text: str) -> list[str]:
    return [unit.split("»")[0].lstrip("«") for unit in text.split(f" {SEP} ")[1:]]


def test_who_directed_alien_offers_the_film_and_the_director_but_not_the_novel_it(
    bundled_index: Path,
) -> None:
    annotator = Annotator.open("linked", bundled_index, {"per_mention": 3})
    text = annotator.question("Who directed Alien?")
    assert text.startswith("Who directed Alien? <sep> ")
    assert {"res:Alien", "ont:director"} <= set(_units(text))
    text = annotator.question("Is it true that the director of Alien is Ridley Scott?")
    assert {"res:Alien", "ont:director", "res:Ridley_Scott"} <= set(_units(text))
    assert "res:It" not in _units(text)
    annotator.close()


def test_linked_units_come_in_mention_order_once_each(tiny_index: Path) -> None:
    annotator = Annotator.open("linked", tiny_index)
    text = annotator.question("Did  Ridley Scott direct the film Alien, as director?")
    units = _units(text)
    assert text.startswith(
        "Did Ridley Scott direct the film Alien, as director? <sep> «res:Ridley_Scott» Ridley Scott (entity, exact)"
    )
    assert units.index("res:Ridley_Scott") < units.index("ont:Film") < units.index("res:Alien")
    assert len(units) == len(set(units))
    assert annotator.question("Did Ridley Scott direct the film Alien, as director?") == text


def test_the_input_says_which_candidates_the_question_names_by_their_label_and_tells_same_labels_apart(
    tmp_path: Path,
) -> None:
    """ "place of death" is dbp:placeOfDeath's label and only a second name of dbo:deathPlace, so only the
    first is `exact`; dbo:birthPlace and dbp:birthPlace share a label, so each says its prefix; "born"
    names them by a derived word, not by their label. Training reads what inference reads."""
    path = tmp_path / INDEX_FILE
    entries = [
        Entry("dbo:deathPlace", "property", ("death place", "place of death"), 5.0),
        Entry("dbp:placeOfDeath", "property", ("place of death",), 1.0),
        Entry("dbo:birthPlace", "property", ("birth place",), 3.0),
        Entry("dbp:birthPlace", "property", ("birth place",), 2.0),
        Entry("dbr:Ada_Lovelace", "entity", ("Ada Lovelace",), 1.0),
    ]
    KBIndex.build(path, list(with_word_forms(entries))).close()
    annotator = Annotator.open("linked", path)
    died = annotator.question("What is the PLACE OF DEATH of Ada Lovelace?")
    assert "«dbp:placeOfDeath» place of death (property, exact)" in died
    assert "«dbo:deathPlace» death place (property)" in died
    assert "«dbr:Ada_Lovelace» Ada Lovelace (entity, exact)" in died
    born = annotator.question("Where was Ada born?")
    assert "«dbo:birthPlace» birth place (property, dbo)" in born
    assert "«dbp:birthPlace» birth place (property, dbp)" in born
    assert "«dbr:Ada_Lovelace» Ada Lovelace (entity)" in born  # a part of its name
    question = "What is the birth place of Ada Lovelace?"
    said = annotator.question(question)
    assert "«dbo:birthPlace» birth place (property, exact, dbo)" in said
    query = (
        "PREFIX dbp: <http://dbpedia.org/property/> SELECT ?x WHERE { dbr:Ada_Lovelace dbp:birthPlace ?x }"
    )
    elements = [
        KBElement("dbr:Ada_Lovelace", "uri", "Ada Lovelace"),
        KBElement("dbp:birthPlace", "uri", "birth place"),
    ]
    for train in (True, False):
        example = Example("q1", question, query, "dbpedia", elements, split="train" if train else "test")
        assert annotator.example(example, train=train).text == said
    annotator.close()


def _example(question: str, split: str = "train") -> Example:
    query = _PREFIXES + "SELECT DISTINCT ?x WHERE { res:Alien ont:composer ?x }"
    elements = [KBElement("res:Alien", "uri", "Alien"), KBElement("ont:composer", "uri", "music by")]
    return Example("q1", question, query, "bundled", elements, split=split)


def test_missed_gold_elements_are_added_on_the_training_split_only(tiny_index: Path) -> None:
    example = _example("Who wrote the music of Alien?")
    always = Annotator.open("linked", tiny_index, {"add_missed_gold": 1.0}, seed=3)
    never = Annotator.open("linked", tiny_index, {"add_missed_gold": 0.0}, seed=3)
    train = always.example(example, train=True)
    assert set(_units(train.text)) == {"res:Alien", "ont:composer"} and train.fully_tagged
    assert "«ont:composer» music by (property)" in train.text
    for annotated in (always.example(example, train=False), never.example(example, train=True)):
        assert annotated.text == never.question(example.question)
        assert annotated.untagged == ["ont:composer"] and not annotated.fully_tagged
    assert always.example(example, train=True).text == train.text  # seeded by (seed, id)


def test_more_candidates_than_max_units_keep_each_mentions_best_then_the_next_best(
    crowded_index: Path,
) -> None:
    every = Annotator.open("linked", crowded_index, {"max_units": None}).question(_CROWDED)
    # the three Alien entities tie: the more popular first
    assert _units(every) == [
        "res:Ridley_Scott", "ont:Film", "res:Alien", "res:Alien_song", "res:Alien_novel", "ont:Director",
        "ont:director",
    ]  # fmt: skip
    four = Annotator.open("linked", crowded_index, {"max_units": 4}).question(_CROWDED)
    assert _units(four) == ["res:Ridley_Scott", "ont:Film", "res:Alien", "ont:Director"]  # one per mention
    five = Annotator.open("linked", crowded_index, {"max_units": 5}).question(_CROWDED)
    assert _units(five) == ["res:Ridley_Scott", "ont:Film", "res:Alien", "res:Alien_song", "ont:Director"]
    tail = Annotator.open("tag_end", crowded_index, {"max_units": 2}).question(_CROWDED)
    assert _units(tail) == ["res:Ridley_Scott", "ont:Film"]  # tag_end tails are bounded too
    with pytest.raises(ValueError, match="max_units must be at least 1"):
        Annotator.open("linked", crowded_index, {"max_units": 0})


def test_gold_added_at_training_stays_within_max_units_and_no_gold_element_is_dropped(
    crowded_index: Path,
) -> None:
    """ont:Director is offered, res:Alien_song only beyond the bound, ont:composer not at all: both are
    added, and the weakest candidates that are not gold (ont:Film, res:Alien) make room for them."""
    query = _PREFIXES + "SELECT DISTINCT ?x WHERE { ?x a ont:Director ; ont:composer res:Alien_song }"
    elements = [
        KBElement("ont:Director", "uri", "director"),
        KBElement("ont:composer", "uri", "music by"),
        KBElement("res:Alien_song", "uri", "Alien"),
    ]
    example = Example("q1", _CROWDED, query, "bundled", elements, split="train")
    annotator = Annotator.open("linked", crowded_index, {"max_units": 4, "add_missed_gold": 1.0}, seed=3)
    train = annotator.example(example, train=True)
    assert sorted(_units(train.text)) == [
        "ont:Director",
        "ont:composer",
        "res:Alien_song",
        "res:Ridley_Scott",
    ]
    assert train.fully_tagged
    held_out = annotator.example(example, train=False)
    assert held_out.text == annotator.question(_CROWDED) and len(_units(held_out.text)) == 4
    assert held_out.untagged == ["ont:composer", "res:Alien_song"]


def test_raw_questions_for_tag_within_and_tag_end_models_go_through_the_linker(tiny_index: Path) -> None:
    question = "Who is the director of Alien?"
    assert (
        Annotator.open("tag_within", tiny_index).question(question)
        == "Who is the «ont:director» of «res:Alien» ?"
    )
    tail = Annotator.open("tag_end", tiny_index).question(question)
    assert (
        tail == "Who is the director of Alien? <sep> «ont:director» director <sep> «res:Alien» Alien"
    )  # no kinds
    given = "Who is the «ont:director» of «res:Alien» ?"
    for scheme in ("tag_within", "tag_end", "linked"):
        assert Annotator.open(scheme, tiny_index).question(given) == given
    assert Annotator.open("raw", tiny_index).question(" Who  is it? ") == "Who is it?"
    assert Annotator("tag_within").question("Who is the director of Alien?") == question


def test_bad_settings_name_the_problem(tiny_index: Path) -> None:
    with pytest.raises(ValueError, match="needs a KB linker"):
        Annotator("linked")
    with pytest.raises(ValueError, match="unknown annotation 'tagged'"):
        Annotator("tagged")
    with pytest.raises(ValueError, match="add_missed_gold must be within"):
        Annotator.open("linked", tiny_index, {"add_missed_gold": 2})


def test_prepared_questions_are_what_the_exported_translator_reads(tmp_path: Path) -> None:
    """The same annotation at training and at inference: prepare's text == Translator.annotate(raw)."""
    cfg = OmegaConf.create(
        {
            "dataset": OmegaConf.load(CONF / "dataset" / "bundled.yaml").dataset,
            "annotation": "linked",
            "seed": 5,
            "linked": {"index": None, "per_mention": 3, "add_missed_gold": 0.0},
            "data": {"root": None, "dir": str(tmp_path / "data")},
        }
    )
    cfg.dataset.reader_options.n_per_template = 4
    splits = prepare(cfg)
    (index,) = (tmp_path / "data" / "bundled" / "linked").glob("index-*.sqlite")
    run = make_run(tmp_path / "run", annotation="linked", linked=dict(cfg.linked))
    copy_index(index, run)
    export = export_model(run, tmp_path / "export")
    assert (export / INDEX_FILE).is_file()
    translator = Translator.from_pretrained(export)
    held_out = splits["validation"] + splits["test"]
    assert held_out and all(translator.annotate(ex.question) == ex.annotated for ex in held_out)
    assert all(SEP in ex.annotated for ex in held_out)
    (result,) = translator.translate([held_out[0].question])
    assert result.input == held_out[0].annotated
    translator.close()


def test_an_export_records_the_linking_code_that_trained_it_and_another_version_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A linked model reads questions as the code that prepared its data linked them: the export keeps
    that version, and a translator of another version warns; a run from before records none."""
    run = make_run(tmp_path / "run", annotation="linked", index=True)
    assert recorded_code(run) is None
    record_code(run)
    export = export_model(run, tmp_path / "export")
    config = json.loads((export / "config.json").read_text(encoding="utf-8"))
    assert config["annotation"]["code"] == code_hash()
    with caplog.at_level(logging.WARNING):
        Translator.from_pretrained(export).close()
    assert "another version" not in caplog.text
    (run / CODE_FILE).write_text(json.dumps({"code": "0" * 64}), encoding="utf-8")
    export_model(run, tmp_path / "export")
    with caplog.at_level(logging.WARNING):
        Translator.from_pretrained(tmp_path / "export").close()
    assert "another version of nmt-sparql's linking code" in caplog.text
    (run / CODE_FILE).write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match=CODE_FILE):
        export_model(run, tmp_path / "export")


def test_a_tag_end_export_reads_raw_questions_with_every_candidate_as_a_tail(tmp_path: Path) -> None:
    export = export_model(make_run(tmp_path / "run", annotation="tag_end", index=True), tmp_path / "export")
    translator = Translator.from_pretrained(export)
    (result,) = translator.translate(["Who is the spouse of Alfred Nobel?"])
    assert result.input.startswith("Who is the spouse of Alfred Nobel? <sep> ")
    assert {"ont:spouse", "res:Alfred_Nobel"} <= set(_units(result.input))
    translator.close()


def test_the_dataset_index_is_built_once_from_the_training_split_and_can_be_given(tmp_path: Path) -> None:
    cfg = OmegaConf.create(
        {
            "dataset": {"name": "mine", "kb": "bundled", "label_files": {}, "endpoint": None},
            "seed": 1,
            "linked": {"index": None},
            "data": {"dir": str(tmp_path / "data")},
        }
    )
    train = [_example("Which songs did Jerry Goldsmith write for Alien?")]
    path = dataset_index(cfg, train)
    assert path.parent == tmp_path / "data" / "mine" / "linked" and path.is_file()
    built = path.stat().st_mtime_ns
    assert dataset_index(cfg, train) == path and path.stat().st_mtime_ns == built  # cached
    with KBIndex.open(path) as index:
        assert index.kind("ont:composer") == "property" and index.kind("res:Alien") == "entity"
    other = [_example("Who wrote the music of Alien?")]
    other[0].id = "q2"
    assert dataset_index(cfg, other) != path  # another training split, another index
    cfg.linked.index = str(path)
    assert dataset_index(cfg, other) == path
    cfg.linked.index = str(tmp_path / "nope.sqlite")
    with pytest.raises(FileNotFoundError, match="linked.index: .*nope.sqlite not found"):
        dataset_index(cfg, other)


def test_a_batch_is_annotated_as_each_of_its_questions_alone(tiny_index: Path) -> None:
    """`examples` and `questions` (linked side by side) give what `example` and `question` give one by one,
    units given by the user and repeated questions included; the paper's schemes are untouched."""
    questions = [
        "Who is the director of Alien?",
        "Who wrote the music of Alien?",
        "Who wrote the music of Alien?",
        "Who is «res:Ridley_Scott»?",
    ]
    examples = [_example(q) for q in questions[:3]]
    for scheme in ("linked", "tag_within", "tag_end"):
        annotator = Annotator.open(scheme, tiny_index, {"add_missed_gold": 1.0}, seed=3)
        assert annotator.questions(questions) == [annotator.question(q) for q in questions]
        assert annotator.examples(examples, train=True) == [
            annotator.example(e, train=True) for e in examples
        ]
        gold = [[KBElement("res:Alien", "uri", "Alien")]] * 3
        assert annotator.examples(examples, train=True, gold=gold) == [
            annotator.example(e, train=True, gold=g) for e, g in zip(examples, gold)
        ]
    assert Annotator.open("linked", tiny_index).questions([]) == []
