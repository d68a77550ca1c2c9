"""`nmt-sparql <command> [hydra overrides]`: one entry point, one Hydra config per command.

Each command has `conf/<command>.yaml` and a `run(cfg)` in `nmt_sparql.commands.<command>`.
Hydra does the rest: overrides, `-m` multiruns (each run in its own folder), `--cfg job`.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from collections.abc import Callable
from typing import Any

COMMANDS = {
    "data": "download, prepare, describe or synthesize a dataset: `data download NAME`, `data prepare`, `data stats`, `data generate kb=FILE out=DIR`",
    "train": "train a model (no arguments: a small copy Transformer on the bundled KB, then evaluate it)",
    "evaluate": "decode a test split with a checkpoint and score BLEU, exact match and answers",
    "translate": "questions -> SPARQL (and answers) with an exported model",
    "export": "write a self-contained inference folder from a checkpoint",
    "serve": "an HTTP JSON API over an exported model",
    "index": "build the KB index that links question words to KB elements: `index build kb=... out=DIR`",
    "explain": 'a SPARQL query in plain English, with KB labels: `explain "QUERY" [kb=wikidata] [index=FILE]`',
}
DATA_ACTIONS = ("download", "prepare", "stats", "generate")


def _usage() -> str:
    lines = ["usage: nmt-sparql <command> [key=value ...] [-m for a multirun]", "", "commands:"]
    lines += [f"  {name:<10} {text}" for name, text in COMMANDS.items()]
    lines += [
        "",
        "examples:",
        "  nmt-sparql data stats dataset=lcquad1 data.root=../shared/datasets out=stats/",
        "  nmt-sparql train model=transformer copy=true annotation=tag_within dataset=lcquad1",
    ]
    return "\n".join(lines)


def _hydra_args(command: str, args: list[str]) -> list[str]:
    """Turn the command's positional words into overrides (`data download lcquad1` -> action=, name=)."""
    if command in ("translate", "serve"):
        # `model=DIR` names the exported model; `model` is otherwise the training config group. A
        # question is text as typed: quoted, so its commas, apostrophes and brackets reach it verbatim.
        return [
            f"export={a[len('model=') :]}"
            if a.startswith("model=")
            else f"question={_quoted(a[len('question=') :])}"
            if a.startswith("question=") and not a.startswith(("question='", 'question="'))
            else a
            for a in args
        ]
    if command == "explain":
        return _explain_args(args)
    if command == "index":
        return [f"action={args[0]}", *args[1:]] if args and "=" not in args[0] else args
    if command != "data":
        return args
    if not args or args[0] not in DATA_ACTIONS:
        raise SystemExit(f"nmt-sparql data: expected one of {', '.join(DATA_ACTIONS)}\n\n{_usage()}")
    action, rest = args[0], args[1:]
    overrides = [f"action={action}"]
    if action == "download" and rest and "=" not in rest[0] and not rest[0].startswith("-"):
        overrides.append(f"name={rest[0]}")
        rest = rest[1:]
    return overrides + rest


def _explain_args(args: list[str]) -> list[str]:
    """A query given as the first argument becomes `query='...'`, quoted so Hydra reads it verbatim."""
    if not args or re.match(r"^[\w.+~]+=", args[0]) or args[0].startswith("-"):
        return args
    return [f"query={_quoted(args[0])}", *args[1:]]


def _quoted(value: str) -> str:
    """`value` as a single-quoted Hydra override value that Hydra reads back verbatim."""
    # Hydra reads a backslash as an escape only before a quote or at the end of a quoted value.
    doubled = re.sub(r"(\\+)(?='|$)", lambda m: m.group(1) * 2, value)
    return "'" + doubled.replace("'", "\\'").replace("${", "\\${") + "'"


# Errors of the user's input, settings or files: their message says what is wrong and what to change,
# so they are printed alone (exit code 2), not as a stack trace; HYDRA_FULL_ERROR=1 shows the trace.
# Project errors about input all derive from ValueError (RecordError, VocabError, CheckpointError, ...).
KNOWN_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,
    FileNotFoundError,
    NotADirectoryError,
    IsADirectoryError,
    PermissionError,
    ConnectionError,
)
USER_ERROR_EXIT = 2


def _error_message(err: BaseException) -> str:
    from omegaconf.errors import MissingMandatoryValue

    if isinstance(err, MissingMandatoryValue):
        return f"missing setting: {err.full_key} is required, add {err.full_key}=... to the command"
    text = str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err)
    return f"{type(err).__name__}: {text.strip()}"


def _reporting(command: str, run: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`run` with its known errors (KNOWN_ERRORS, missing settings) printed as one or two lines, exit 2."""
    from omegaconf.errors import MissingMandatoryValue

    from nmt_sparql.training.lock import RunFolderLocked

    @functools.wraps(run)
    def reporting(cfg: Any) -> Any:
        try:
            return run(cfg)
        except (*KNOWN_ERRORS, MissingMandatoryValue, RunFolderLocked) as err:
            if os.environ.get("HYDRA_FULL_ERROR") == "1":
                raise
            print(f"nmt-sparql {command}: {_error_message(err)}", file=sys.stderr)
            print("(set HYDRA_FULL_ERROR=1 for the full stack trace)", file=sys.stderr)
            raise SystemExit(USER_ERROR_EXIT) from None

    return reporting


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return
    command = argv[0]
    if command not in COMMANDS:
        raise SystemExit(f"nmt-sparql: unknown command '{command}'\n\n{_usage()}")
    import hydra

    module = importlib.import_module(f"nmt_sparql.commands.{command}")
    task = hydra.main(config_path="pkg://nmt_sparql.conf", config_name=command, version_base="1.3")(
        _reporting(command, module.run)
    )
    sys.argv = [f"nmt-sparql {command}", *_hydra_args(command, argv[1:])]
    task()


if __name__ == "__main__":
    main()
