"""Questions -> SPARQL (and answers) with an exported model: the one inference API.

`Translator.from_pretrained(path)` needs only the export folder (see serving/export.py): the model
is rebuilt from config.json, weights come from model.safetensors, the KB prefix map from
prefixes.json, and raw questions are annotated through the KB index kb_index.sqlite by the same
annotator training used (annotation/annotator.py). CLI `translate` and the HTTP server are thin
layers over `translate`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_model

from nmt_sparql.annotation.annotator import Annotator
from nmt_sparql.annotation.units import check_units, units
from nmt_sparql.data.fingerprint import code_hash
from nmt_sparql.execution.answer import Answer
from nmt_sparql.execution.base import KnowledgeBase, execute_many
from nmt_sparql.execution.config import KBSettings
from nmt_sparql.execution.safety import UnsafeQueryError
from nmt_sparql.inference.decode import asked_forms, decode
from nmt_sparql.inference.explain import ExplainError, TermLabels
from nmt_sparql.inference.explain import explain as explain_query
from nmt_sparql.inference.kb import open_kb
from nmt_sparql.inference.repair import MAX_ROUNDS, Repairer
from nmt_sparql.inference.tokenizer import load_tokenizer
from nmt_sparql.models.registry import build_model
from nmt_sparql.preparation.linking_index import INDEX_FILE
from nmt_sparql.serving.export import FORMAT, VERSION, find_pickles
from nmt_sparql.serving.manifest import MANIFEST, read_export_json, verify_manifest
from nmt_sparql.serving.quantize import check_mode, quantize_model
from nmt_sparql.sparql.prefixes import KB_PREFIXES, PrefixMap
from nmt_sparql.sparql.tokens import detokenize, kb_tokens
from nmt_sparql.training.checkpoint import corrupt_file

log = logging.getLogger(__name__)


class ExportFormatError(ValueError):
    """An export folder that is missing a file or has a malformed config."""


@dataclass
class Translation:
    """One question's result: what the model read (`input`), produced (`tokens`, `sparql`), and the answer."""

    question: str
    input: str
    tokens: list[str]
    sparql: str
    kb_elements: list[str] = field(default_factory=list)
    answer: dict[str, Any] | None = None
    explanation: str | None = None
    repair: dict[str, Any] | None = None  # the repair rounds (inference/repair.py), when asked for
    ensemble: dict[str, int] | None = None  # the member chosen and its votes (serving/ensemble.py)
    hypotheses: list[list[str]] = field(default_factory=list, repr=False)  # the n-best repair starts from

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("hypotheses")
        for key in ("answer", "explanation", "repair", "ensemble"):
            if data[key] is None:
                data.pop(key)
        return data


def _read_json(path: Path) -> Any:
    return read_export_json(
        path, ExportFormatError, f"not found; is {path.parent} a `nmt-sparql export` folder?"
    )


def _load_prefixes(path: Path, kb: str) -> PrefixMap:
    """The export's prefix map, registered under the KB name so the tokenizer finds it too."""
    data = _read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("prefixes"), dict):
        raise ExportFormatError(f"{path}: field 'prefixes' must be an object of prefix -> namespace")
    pm = PrefixMap(kb, dict(data["prefixes"]))
    if data.get("vocabulary_iris"):
        pm = PrefixMap(kb, pm.prefixes, frozenset(data["vocabulary_iris"]))
    KB_PREFIXES.setdefault(kb, pm)
    return pm


class Translator:
    """An exported model with its tokenizer, annotation settings and (optionally) a KB to execute on."""

    def __init__(
        self,
        model: torch.nn.Module,
        tokenizer: Any,
        config: dict[str, Any],
        prefixes: PrefixMap,
        device: str = "cpu",
        kb: KnowledgeBase | None = None,
        annotator: Annotator | None = None,
    ):
        self.model, self.tokenizer, self.config, self.prefixes = model.eval(), tokenizer, config, prefixes
        self.device = torch.device(device)
        self.kb = kb
        self.scheme = config["annotation"]["scheme"]
        self.seed = int(config["annotation"].get("seed", 0))
        self.annotator = annotator or Annotator(self.scheme, None, self.seed)
        self.decode_defaults = dict(config.get("decode") or {})
        self._lock = threading.Lock()  # one decode at a time: callers may share a translator across threads
        self.kb_workers = 1  # queries of one call executed at once
        self.repair_rounds = MAX_ROUNDS  # at most this many rounds of `repair`
        self._repairer: Repairer | None = None

    @classmethod
    def from_command(cls, cfg: Mapping[str, Any]) -> Translator:
        """The translator a command config names (translate, serve): export, device, KB, index, KB
        settings and quantization."""
        return cls.from_pretrained(
            cfg["export"],
            device=cfg["device"],
            kb=cfg["kb"],
            index=cfg["index"],
            kb_settings=KBSettings.from_config(cfg),
            quantize=cfg.get("quantize"),
        )

    @classmethod
    def from_pretrained(
        cls,
        path: str | Path,
        device: str = "cpu",
        kb: str | None = None,
        index: str | Path | None = None,
        kb_settings: KBSettings | None = None,
        quantize: str | None = None,
    ) -> Translator:
        """Load an export folder. `kb`: where answers come from (`embedded:bundled`, RDF files, an
        endpoint URL); `index`: the KB index raw questions are linked with (default: the export's);
        `kb_settings`: timeouts, retries, workers and allowed hosts of the KB's queries;
        `quantize`: none | int8 | bf16 instead of the export's own setting (config.json `quantize`).

        Refused before anything is loaded: pickle files anywhere in the export (only safetensors
        weights are read), and files whose sha256 differs from manifest.json."""
        path = Path(path)
        pickles = find_pickles(path)
        if pickles:
            raise ExportFormatError(
                f"{path}: refusing an export that holds pickle files {pickles}: loading them can run "
                "code; an export's weights are model.safetensors (and hf/model.safetensors) only"
            )
        if (path / MANIFEST).exists():
            verify_manifest(path)
        config = _read_json(path / "config.json")
        if not isinstance(config, dict) or config.get("format") != FORMAT:
            raise ExportFormatError(f"{path / 'config.json'}: field 'format' must be {FORMAT!r}")
        version = int(config.get("version", 0))
        if version > VERSION:
            raise ExportFormatError(
                f"{path / 'config.json'}: version {config['version']} is newer than {VERSION}"
            )
        if not (path / MANIFEST).exists():
            if version >= 2:
                verify_manifest(path)  # raises: the manifest of a version 2 export is missing
            log.warning("%s: exported before manifests, its files are not checked; export it again", path)
        for key in ("model", "copy", "kb", "annotation"):
            if key not in config:
                raise ExportFormatError(f"{path / 'config.json'}: field '{key}' is missing")
        prefixes = _load_prefixes(path / "prefixes.json", config["kb"])
        tokenizer = load_tokenizer(path / "tokenizer")
        model_cfg = dict(config["model"])
        if model_cfg.get("pretrained") == "hf":
            model_cfg["pretrained"] = str(path / "hf")
        model = build_model(model_cfg, tokenizer.spec, bool(config["copy"]))
        weights = path / "model.safetensors"
        try:
            missing, unexpected = load_model(model, str(weights), strict=False, device="cpu")
        except (SafetensorError, OSError) as exc:
            raise corrupt_file(weights, exc, "export the run again (`nmt-sparql export`)") from exc
        if missing or unexpected:
            raise ExportFormatError(
                f"{path / 'model.safetensors'}: missing {sorted(missing)}, unexpected {sorted(unexpected)}"
            )
        model.to(device)
        where = f"{path / 'config.json'}: field 'quantize'" if quantize is None else "quantize"
        mode = check_mode(config.get("quantize", "none") if quantize is None else quantize, where)
        model = quantize_model(model, mode, device)
        kb_settings = kb_settings or KBSettings()
        knowledge_base = open_kb(kb, config["kb"], kb_settings) if kb else None
        annotator = _annotator(config, Path(index) if index else path / INDEX_FILE)
        translator = cls(model, tokenizer, config, prefixes, device, knowledge_base, annotator)
        translator.kb_workers = kb_settings.workers
        return translator

    def annotate(self, question: str) -> str:
        """The model input for `question`: what training wrote for the same question (linked), or
        its KB elements found by the linker (tag_within, tag_end); «token» units given are kept."""
        return self.annotator.question(question)

    @torch.inference_mode()
    def translate(
        self,
        questions: Sequence[str],
        beam: int | None = None,
        annotate: bool = True,
        answers: bool = False,
        max_len: int | None = None,
        explain: bool = False,
        repair: bool = False,
        n_best: int | None = None,
    ) -> list[Translation]:
        """SPARQL for each question. `annotate=False` feeds the text as it is (already annotated, or a
        raw model); `answers=True` executes each query on the translator's KB (read-only); `repair=True`
        decodes the beam's n-best and repairs it on the KB (`repair`), with the answer and the rounds;
        `n_best`: hypotheses kept in `Translation.hypotheses` (default: the beam with repair, else 1);
        `explain=True` adds each final query in plain English (`explain`)."""
        if (answers or repair) and self.kb is None:
            asked = "answers=True" if answers else "repair=True"
            raise ValueError(f"{asked} needs a KB: Translator.from_pretrained(path, kb=...)")
        inputs = self.annotator.questions(questions) if annotate else [" ".join(q.split()) for q in questions]
        for text in inputs:
            check_units(text, self.prefixes)  # a unit is copied verbatim into the query
        settings = {**self.decode_defaults, "n_best": 1}
        if beam is not None:
            settings["beam"] = int(beam)
        if max_len is not None:
            settings["max_len"] = int(max_len)
        if int(settings.get("beam", 1)) < 1:
            raise ValueError(f"beam must be >= 1, got {settings['beam']}")
        if n_best is not None or repair:
            settings["n_best"] = min(int(settings.get("beam", 1)), int(n_best or settings.get("beam", 1)))
        with self._lock:
            on_device = _OnDevice(self.tokenizer, self.device)
            nbest = decode(self.model, on_device, inputs, settings) if inputs else []
            if repair:  # a form the question asks for that the beam lacks is decoded for
                nbest = asked_forms(self.model, on_device, questions, inputs, nbest, settings)
        results = []
        for question, text, hyps in zip(questions, inputs, nbest):
            tokens = hyps[0]
            sparql = detokenize(tokens, self.prefixes)
            results.append(
                Translation(question, text, tokens, sparql, kb_tokens(tokens, self.prefixes), hypotheses=hyps)
            )
        if repair:
            results = [self.repair(result) for result in results]
        elif answers:
            found = execute_many(
                self.kb, [r.sparql for r in results], workers=self.kb_workers, progress=False, desc="answers"
            )
            for result, answer in zip(results, found):
                result.answer = answer.to_json()
        if explain:
            for result in results:
                result.explanation = self.explain(result.sparql)
        return results

    def explain(self, sparql: str) -> str:
        """The query in plain English, IRIs named by the KB index's labels; a query that does not
        parse gets a sentence saying so (inference/explain.py)."""
        try:
            return explain_query(sparql, self.prefixes, TermLabels(self.prefixes, self.annotator.index))
        except ExplainError as err:
            return f"Not explained: {err}"

    @property
    def name(self) -> str:
        """The model's registry name (`serve`'s /health)."""
        return str(self.config["model"]["name"])

    def beam_of(self, beam: int | None) -> int:
        """The beam size a `translate(beam=...)` call decodes with (None: the export's)."""
        return int(beam if beam is not None else self.decode_defaults.get("beam", 1))

    def repair(self, result: Translation) -> Translation:
        """`result` with the query and answer that execution feedback and repair found (inference/repair.py),
        starting from its n-best hypotheses, and the rounds in `result.repair`. Blocks on KB queries."""
        if self.kb is None:
            raise ValueError("repair needs a KB: Translator.from_pretrained(path, kb=...)")
        if self._repairer is None or self._repairer.max_rounds != self.repair_rounds:
            self._repairer = Repairer(self.kb, self.prefixes, self.annotator.index, self.repair_rounds)
        repaired = self._repairer.repair(
            result.hypotheses or [result.tokens], units(result.input), result.question
        )
        result.tokens = repaired.tokens
        result.sparql = detokenize(repaired.tokens, self.prefixes)
        result.kb_elements = kb_tokens(repaired.tokens, self.prefixes)
        result.answer = None if repaired.answer is None else repaired.answer.to_json()
        result.repair = repaired.to_json()
        return result

    def execute(self, sparql: str) -> dict[str, Any]:
        """The answer of one query on the KB as JSON: refused queries (updates, hosts outside
        `kb.allow_hosts`), failures and timeouts (`kb.timeout_s`, hard for an embedded store) become
        an error answer. Blocks for up to the KB's timeout: a server calls it off its decode thread."""
        if self.kb is None:
            raise ValueError("no KB: Translator.from_pretrained(path, kb=...)")
        try:
            return self.kb.query(sparql).to_json()
        except UnsafeQueryError as err:
            return Answer.failed(str(err)).to_json()

    def close(self) -> None:
        if self.kb is not None:
            self.kb.close()
        self.annotator.close()


def _annotator(config: dict[str, Any], index: Path) -> Annotator:
    """The export's annotator; without an index file a tag_within/tag_end model reads questions as written."""
    annotation = config["annotation"]
    scheme, seed = annotation["scheme"], int(annotation.get("seed", 0))
    if scheme == "raw":
        return Annotator(scheme, None, seed)
    if not index.is_file():
        if scheme == "linked":
            raise ExportFormatError(f"{index}: not found; a linked model needs its KB index")
        log.warning(
            "no KB index at %s to find KB elements in raw questions: write them as «token» units "
            "(this %s model reads annotated questions)",
            index,
            scheme,
        )
        return Annotator(scheme, None, seed)
    trained_on = annotation.get("code")
    if scheme == "linked" and trained_on is not None and trained_on != code_hash():
        log.warning(
            "this model was trained on questions linked by another version of nmt-sparql's linking code "
            "(%s, this one %s): it reads questions linked otherwise, and may answer fewer; translate with the "
            "version that trained it, or train again",
            trained_on[:12],
            code_hash()[:12],
        )
    return Annotator.open(scheme, index, annotation.get("linked"), seed)


class _OnDevice:
    """The tokenizer with batches moved to the model's device (decode collates on CPU)."""

    def __init__(self, tokenizer: Any, device: torch.device):
        self._tokenizer, self._device = tokenizer, device

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tokenizer, name)

    def collate(self, items: Any) -> Any:
        batch = self._tokenizer.collate(items)
        return batch.to(self._device) if self._device.type != "cpu" else batch
