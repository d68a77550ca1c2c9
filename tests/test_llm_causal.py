"""Decoder-only LLMs (model=llama): prompts per annotation, answer-only loss, the KB-element
constraint, LoRA checkpoints, local pretrained weights, overfitting, exact resume, export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from omegaconf import OmegaConf
from safetensors.torch import load_file
from test_models_overfit import synthetic_pairs
from transformers import AutoModelForCausalLM, LlamaConfig

from nmt_sparql.decoding import greedy
from nmt_sparql.decoding.kb_constraint import ConstraintRows, KBConstraint, iri_like
from nmt_sparql.inference.decode import decode
from nmt_sparql.models.causal_lm import CausalLM
from nmt_sparql.models.registry import ModelConfigError, build_model
from nmt_sparql.serving.export import export_model
from nmt_sparql.serving.translator import Translator
from nmt_sparql.sparql.tokens import detokenize
from nmt_sparql.tokenization.prompt import PromptTokenizer, build_prompt, prompt_parts
from nmt_sparql.training import make_train_loader, train
from nmt_sparql.training.checkpoint import TrainState, load_weights, save_checkpoint
from nmt_sparql.training.loss import sequence_nll

DIMS = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
        "num_key_value_heads": 2, "max_position_embeddings": 512}  # fmt: skip
TINY = {"name": "llama", "pretrained": None, "config": DIMS}


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def pairs() -> list[tuple[str, list[str]]]:
    return synthetic_pairs()


@pytest.fixture(scope="module")
def codec(pairs) -> PromptTokenizer:
    return PromptTokenizer.build(pairs, "dbpedia", sp_vocab_size=300)


def tiny(codec: PromptTokenizer, seed: int = 0, **extra) -> CausalLM:
    torch.manual_seed(seed)
    return build_model({**TINY, **extra}, codec.spec, False)


# -- prompts ----------------------------------------------------------------------------------------
TAIL = "Who wrote Dune ? <sep> «dbr:Dune_(novel)» Dune <sep> «dbo:author» author"


@pytest.mark.parametrize(
    "question, listed, input_text",
    [
        ("Who wrote Dune ?", None, "Who wrote Dune ?"),  # raw
        (
            "Who is the «dbo:author» of «dbr:Dune» ?",
            "«dbo:author», «dbr:Dune»",
            "Who is the «dbo:author» of «dbr:Dune» ?",
        ),
        (TAIL, "«dbr:Dune_(novel)» Dune, «dbo:author» author", "Who wrote Dune ?"),  # tag_end
        (
            "Who wrote Dune ? <sep> «dbr:Dune» Dune (entity)",
            "«dbr:Dune» Dune (entity)",
            "Who wrote Dune ?",
        ),  # linked
    ],
    ids=["raw", "tag_within", "tag_end", "linked"],
)
def test_the_prompt_lists_the_questions_kb_elements(
    question: str, listed: str | None, input_text: str
) -> None:
    task = (
        "Translate into SPARQL query the following question:"
        if listed is None
        else f"Use the following URIs: {listed} to translate into SPARQL query the following question:"
    )
    assert build_prompt(question) == f"###Instruction: {task}\n###Input: {input_text}\n###Output:"
    assert build_prompt(question, "plain") == f"###Input: {question}\n###Output:"


def test_prompt_elements_are_distinct_in_order() -> None:
    _, _, tokens = prompt_parts("the «dbo:author» of «dbr:X» and «dbo:author» <sep> «dbr:Y» Y")
    assert tokens == ["dbo:author", "dbr:X", "dbr:Y"]
    with pytest.raises(ValueError, match="model.prompt"):
        build_prompt("q", "chat")


# -- loss -------------------------------------------------------------------------------------------
def test_loss_covers_the_answer_only_and_padding_changes_nothing(codec, pairs) -> None:
    model = tiny(codec).eval()
    items = [codec.encode(q, t) for q, t in pairs[:3]]
    batch = codec.collate(items)
    with torch.no_grad():
        losses, counts = sequence_nll(model(batch), batch.tgt_ids[:, 1:], model.pad_id)
        for i, item in enumerate(items):
            ids = torch.tensor([item.src_ids + item.tgt_ids[1:]])
            labels = torch.tensor([[-100] * len(item.src_ids) + item.tgt_ids[1:]])
            reference = model.model(input_ids=ids, labels=labels).loss  # HF's shifted loss, prompt masked
            assert int(counts[i]) == len(item.tgt_ids) - 1
            assert torch.allclose(losses[i] / counts[i], reference, atol=1e-5)


def test_causal_lm_refuses_the_copy_layer_and_a_7b_random_init(codec) -> None:
    with pytest.raises(ModelConfigError, match="copy=false"):
        build_model(TINY, codec.spec, True)
    with pytest.raises(ModelConfigError, match="model.config is empty"):
        build_model({**TINY, "config": {}}, codec.spec, False)


# -- the KB-element constraint -----------------------------------------------------------------------
def test_constraint_keeps_every_generated_iri_among_the_prompts_elements(codec, pairs) -> None:
    model = tiny(codec, seed=3)  # untrained: it writes arbitrary sub-words
    questions = [q for q, _ in pairs[:6]]
    settings = {"beam": 1, "max_len": 60, "kb_constraint": True}
    constrained = decode(model, codec, questions, settings)
    for question, (tokens,) in zip(questions, constrained):
        allowed = set(prompt_parts(question)[2]) | set(codec.free)
        text = codec.hf_tokenizer.decode(codec.hf_tokenizer(" ".join(tokens))["input_ids"])
        assert all(w in allowed for w in text.split() if iri_like(w.encode())), (question, tokens)
    beams = decode(model, codec, questions, {**settings, "beam": 3})
    assert all(w in set(prompt_parts(q)[2]) | set(codec.free) for q, (t,) in zip(questions, beams)
               for w in t if iri_like(w.encode()))  # fmt: skip


def test_constraint_allows_only_continuations_of_a_listed_element() -> None:
    pieces = [b"", b"", b" dbr", b":", b"Ri", b"chard", b"Ro", b" ?x", b"_Coke", b"dbr:Bad"]
    special = [True, True] + [False] * 8
    rule = KBConstraint(pieces, special).with_elements([["dbr:Richard_Coke"]])
    log_probs = torch.zeros(1, len(pieces))
    word = ConstraintRows(rule, [b"dbr:"], [0])
    allowed = torch.isfinite(word.restrict(log_probs, 0)[0]).nonzero().flatten().tolist()
    assert allowed == [4]  # "Ri"; not "Ro", not a word end, not "dbr:Bad"
    word = word.advance(torch.tensor([4])).advance(torch.tensor([5])).advance(torch.tensor([8]))
    assert word.words == [b"dbr:Richard_Coke"]
    allowed = torch.isfinite(word.restrict(log_probs, 0)[0]).nonzero().flatten().tolist()
    assert allowed == [0, 1, 2, 7]  # the element is complete: specials (eos) and new words
    start = rule.start(torch.ones(1, 3, dtype=torch.bool), max_len=10)
    assert (start.words, start.examples) == ([b""], [0])
    rows = ConstraintRows(rule, [b"dbr", b""], [0, 0]).select(torch.tensor([1, 0]))
    free = torch.isfinite(rows.restrict(log_probs.repeat(2, 1), 0))
    assert not free[0, 9] and free[0, 2] and free[0, 4]  # a wrong IRI is banned, a plain word is not
    assert not free[0, 3] and free[1, 3]  # ":" may follow "dbr" (a listed prefix), not start a word
    raw = KBConstraint(pieces, special).with_elements([[]])  # a prompt without elements is not restricted
    assert torch.isfinite(ConstraintRows(raw, [b"dbr:"], [0]).restrict(log_probs, 0)).all()


# -- LoRA and pretrained weights ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def saved_base(tmp_path_factory, codec) -> Path:
    """A tiny Llama written by save_pretrained, as a user's local weights would be."""
    folder = tmp_path_factory.mktemp("base")
    torch.manual_seed(1)
    spec = codec.spec
    config = LlamaConfig(vocab_size=spec.tgt_size, pad_token_id=spec.pad_id, eos_token_id=spec.eos_id, **DIMS)
    AutoModelForCausalLM.from_config(config).save_pretrained(folder)
    codec.hf_tokenizer.save_pretrained(folder)
    return folder


def test_pretrained_path_loads_the_saved_weights_and_tokenizer(saved_base: Path, pairs, codec) -> None:
    source = AutoModelForCausalLM.from_pretrained(saved_base)
    local = PromptTokenizer.build(pairs, "dbpedia", pretrained=str(saved_base))
    assert local.encode(*pairs[0]).tgt_ids == codec.encode(*pairs[0]).tgt_ids
    model = build_model({"name": "llama", "pretrained": str(saved_base)}, local.spec, False)
    for name, tensor in source.state_dict().items():
        assert torch.equal(model.model.state_dict()[name], tensor), name


def test_lora_checkpoint_holds_the_adapters_and_loads_back(saved_base: Path, codec, pairs, tmp_path) -> None:
    cfg = {"name": "llama", "pretrained": str(saved_base), "lora": {"r": 4, "alpha": 8, "dropout": 0.0}}
    model = build_model(cfg, codec.spec, False)
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    assert trainable and all("lora_" in n for n in trainable)
    batch = codec.collate([codec.encode(q, t) for q, t in pairs[:4]])
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    for _ in range(3):
        losses, counts = sequence_nll(model(batch), batch.tgt_ids[:, 1:], model.pad_id)
        opt.zero_grad()
        (losses.sum() / counts.sum()).backward()
        opt.step()
    save_checkpoint(tmp_path / "best", model, TrainState())
    assert set(load_file(tmp_path / "best" / "model.safetensors")) == trainable
    again = build_model(cfg, codec.spec, False)
    load_weights(tmp_path / "best", again)
    model.eval(), again.eval()
    with torch.no_grad():
        assert torch.equal(model(batch), again(batch))
        fresh = build_model(cfg, codec.spec, False).eval()
        assert not torch.equal(model(batch), fresh(batch))  # the adapters did change the model


def test_quantization_without_bitsandbytes_or_gpu_is_a_clear_error(saved_base: Path, codec) -> None:
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: QLoRA may load here")
    cfg = {"name": "llama", "pretrained": str(saved_base), "quantization": "4bit", "lora": {"r": 4}}
    with pytest.raises(ModelConfigError, match="4bit"):
        build_model(cfg, codec.spec, False)


# -- training ----------------------------------------------------------------------------------------
def test_tiny_llama_overfits_twenty_examples(codec, pairs) -> None:
    model = tiny(codec)
    items = [codec.encode(q, t) for q, t in pairs]
    batch = codec.collate(items)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    exact = 0
    for step in range(1, 201):
        model.train()
        losses, counts = sequence_nll(model(batch), batch.tgt_ids[:, 1:], model.pad_id)
        opt.zero_grad()
        (losses.sum() / counts.sum()).backward()
        opt.step()
        if step % 25 == 0:
            hyps = greedy(model, batch, 60)
            exact = sum(codec.decode_ids(h) == t for h, (_, t) in zip(hyps, pairs))
            if exact == len(pairs):
                break
    assert exact == len(pairs)


RECIPE = {"seed": 0, "max_steps": 6, "log_every_steps": 1, "progress_bar": False, "save_every_steps": 1,
          "optimizer": {"name": "adam", "lr": 0.01}, "scheduler": {"name": "polynomial", "warmup_steps": 2}}  # fmt: skip


class Crash(RuntimeError):
    pass


def fit(codec, pairs, out: Path, max_steps: int, crash_at: int | None = None) -> CausalLM:
    model = tiny(codec, lora={"r": 2, "alpha": 4, "dropout": 0.1})  # dropout: the RNG must resume too
    items = [codec.encode(q, t) for q, t in pairs]

    class Data(torch.utils.data.Dataset):
        fetched = 0

        def __len__(self) -> int:
            return len(items)

        def __getitem__(self, i: int):
            Data.fetched += 1
            if Data.fetched == crash_at:
                raise Crash
            return items[i]

    loader = make_train_loader(Data(), batch_size=5, collate_fn=codec.collate, seed=3)
    train({**RECIPE, "max_steps": max_steps}, model, loader, None, out)
    return model


def test_training_resumes_exactly(codec, pairs, tmp_path) -> None:
    full = fit(codec, pairs, tmp_path / "full", 6)
    with pytest.raises(Crash):
        fit(codec, pairs, tmp_path / "cut", 6, crash_at=18)  # in the 4th batch
    resumed = fit(codec, pairs, tmp_path / "cut", 6)
    for (name, a), (_, b) in zip(full.named_parameters(), resumed.named_parameters()):
        assert torch.equal(a, b), name
    records = [[json.loads(x) for x in (d / "train_log.jsonl").read_text().splitlines()]
               for d in (tmp_path / "full", tmp_path / "cut")]  # fmt: skip
    logs = [[r["loss"] for r in rs if r["event"] == "step"] for rs in records]
    assert logs[0] == logs[1] and len(logs[0]) == 6


# -- export, translate ------------------------------------------------------------------------------
@pytest.mark.parametrize("lora", [None, {"r": 2, "alpha": 4}], ids=["full", "lora-merged"])
def test_export_translates_like_the_run(codec, pairs, saved_base: Path, tmp_path, lora) -> None:
    run = tmp_path / "run"
    model_cfg = {**TINY, "pretrained": str(saved_base) if lora else None, "lora": lora}
    model = tiny(codec, **{k: v for k, v in model_cfg.items() if k != "name"})
    if lora:  # adapters that are not zero, so merging them matters
        for name, p in model.named_parameters():
            if "lora_B" in name:
                torch.nn.init.normal_(p, std=0.5)
    codec.save(run / "tokenizer")
    cfg = {"dataset": {"name": "bundled", "kb": "dbpedia"}, "model": model_cfg, "copy": False,
           "annotation": "tag_within", "seed": 0, "decode": {"max_len": 40, "kb_constraint": True}}  # fmt: skip
    (run / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(cfg)), encoding="utf-8")
    save_checkpoint(run / "best", model, TrainState())
    questions = [q for q, _ in pairs[:4]]
    expected = [detokenize(h[0], "dbpedia") for h in decode(model, codec, questions, cfg["decode"])]
    out = export_model(run, tmp_path / "export")
    assert (out / "hf" / "model.safetensors").is_file() and not list(out.rglob("adapter_*"))
    exported = json.loads((out / "config.json").read_text())
    assert exported["model"]["frozen"] is True and exported["decode"]["kb_constraint"] is True
    translator = Translator.from_pretrained(out)
    try:
        got = [t.sparql for t in translator.translate(questions, annotate=False)]
    finally:
        translator.close()
    assert got == expected


def test_generated_text_that_does_not_lex_decodes_word_by_word(codec) -> None:
    ids = codec.hf_tokenizer("select ?uri where { foo:bar dbo:author ?uri", add_special_tokens=False)[
        "input_ids"
    ]
    tokens = codec.decode_ids(ids + [codec.hf_tokenizer.eos_token_id, 5])
    assert tokens == ["select", "?uri", "where", "{", "<unk>", "dbo:author", "?uri"]
    assert detokenize(tokens, "dbpedia").startswith("PREFIX dbo:")
