"""The command line: `nmt-sparql <command> [overrides]`."""

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import OmegaConf

from nmt_sparql.cli import _hydra_args, main


def test_help_lists_commands(capsys):
    main(["--help"])
    out = capsys.readouterr().out
    for command in ("data", "train", "evaluate", "translate", "export", "serve"):
        assert command in out


def test_unknown_command_is_rejected():
    with pytest.raises(SystemExit, match="unknown command 'fly'"):
        main(["fly"])


def test_data_positional_words_become_overrides():
    assert _hydra_args("data", ["download", "lcquad1", "data.root=x"]) == [
        "action=download",
        "name=lcquad1",
        "data.root=x",
    ]
    assert _hydra_args("data", ["stats", "dataset=qald9"]) == ["action=stats", "dataset=qald9"]
    with pytest.raises(SystemExit, match="expected one of"):
        _hydra_args("data", ["explode"])


def test_translate_and_serve_take_model_as_the_export_folder():
    assert _hydra_args("translate", ["model=exp", "question=q"]) == ["export=exp", "question='q'"]
    assert _hydra_args("serve", ["model=exp"]) == ["export=exp"]


@pytest.mark.parametrize(
    "question",
    [
        "Einstein's universities are in which city?",
        "Who directed Alien, the film?",
        "films [1979] {x} = ${y} \\",
    ],
)
def test_a_typed_question_reaches_translate_verbatim(question: str) -> None:
    """Apostrophes, commas and brackets are Hydra syntax: the question is quoted for it."""
    (override,) = _hydra_args("translate", [f"question={question}"])
    value = OverridesParser.create().parse_override(override).value()
    assert OmegaConf.create({"question": value}).question == question  # as the command reads its config
