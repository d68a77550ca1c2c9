"""`nmt-sparql <command> [hydra overrides]`: one entry point, one Hydra config per command.

Each command has `conf/<command>.yaml` and a `run(cfg)` in `nmt_sparql.commands.<command>`.
Hydra does the rest: overrides, `-m` multiruns (each run in its own folder), `--cfg job`.
"""

from __future__ import annotations

import importlib
import re
import sys

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
        # `model=DIR` names the exported model; `model` is otherwise the training config group.
        return [f"export={a[len('model=') :]}" if a.startswith("model=") else a for a in args]
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
    # Hydra reads a backslash as an escape only before a quote or at the end of a quoted value.
    doubled = re.sub(r"(\\+)(?='|$)", lambda m: m.group(1) * 2, args[0])
    quoted = doubled.replace("'", "\\'").replace("${", "\\${")
    return [f"query='{quoted}'", *args[1:]]


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
        module.run
    )
    sys.argv = [f"nmt-sparql {command}", *_hydra_args(command, argv[1:])]
    task()


if __name__ == "__main__":
    main()
