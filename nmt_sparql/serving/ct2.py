"""Our non-copy Transformer and the T5 wrapper as CTranslate2 models, to time the fastest CPU engine.

CTranslate2 (the optional `bench` extra) has no copy layer, so only non-copy models convert. Our
Transformer maps onto its `TransformerSpec` one to one: fused q/k/v self-attention, query + fused
key/value cross-attention, ReLU feed-forward, embeddings scaled by sqrt(dim), our interleaved sin/cos
positions given as an explicit table (CTranslate2's own sinusoids are laid out differently), pre- or
post-norm. T5 goes through CTranslate2's own Hugging Face loader. Token ids are named `t<id>`, so a
converted model reads and writes the same ids as ours.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from nmt_sparql.models.transformer import Attention, TransformerSeq2Seq, sinusoidal_positions


def _ct2() -> Any:
    try:
        import ctranslate2
    except ImportError as err:
        raise ImportError("CTranslate2 is not installed: pip install 'nmt-sparql[bench]'") from err
    return ctranslate2


def id_tokens(size: int) -> list[str]:
    """The vocabulary of a converted model: token `t<i>` is id i."""
    return [f"t{i}" for i in range(size)]


def _linear(spec: Any, module: torch.nn.Linear) -> None:
    spec.weight = module.weight.detach().float().numpy()
    if module.bias is not None:
        spec.bias = module.bias.detach().float().numpy()


def _fused(spec: Any, modules: list[torch.nn.Linear]) -> None:
    spec.weight = torch.cat([m.weight.detach().float() for m in modules]).numpy()
    spec.bias = torch.cat([m.bias.detach().float() for m in modules]).numpy()


def _norm(spec: Any, module: torch.nn.LayerNorm) -> None:
    spec.gamma = module.weight.detach().float().numpy()
    spec.beta = module.bias.detach().float().numpy()


def _attention(spec: Any, attn: Attention, self_attention: bool) -> None:
    if self_attention:
        _fused(spec.linear[0], [attn.q, attn.k, attn.v])
    else:
        _linear(spec.linear[0], attn.q)
        _fused(spec.linear[1], [attn.k, attn.v])
    _linear(spec.linear[-1], attn.o)


def transformer_spec(model: TransformerSeq2Seq, max_positions: int = 512) -> Any:
    """The CTranslate2 spec of a non-copy `TransformerSeq2Seq` (positions up to `max_positions`)."""
    ct2 = _ct2()
    if model.copy:
        raise ValueError("CTranslate2 has no copy layer: only a copy=false Transformer converts")
    first = model.encoder[0]
    spec = ct2.specs.TransformerSpec.from_config(
        (len(model.encoder), len(model.decoder)),
        first.attn.heads,
        pre_norm=first.pre_norm,
        activation=ct2.specs.Activation.RELU,
    )
    positions = sinusoidal_positions(max_positions, model.dim).numpy()
    for stack, layers, embed in (
        (spec.encoder, model.encoder, model.src_embed),
        (spec.decoder, model.decoder, model.tgt_tokens),
    ):
        embeddings = stack.embeddings[0] if isinstance(stack.embeddings, list) else stack.embeddings
        embeddings.weight = embed.weight.detach().float().numpy()
        stack.scale_embeddings = True
        stack.position_encodings.encodings = positions
        if first.pre_norm:
            _norm(stack.layer_norm, model.enc_norm if stack is spec.encoder else model.dec_norm)
        for layer_spec, layer in zip(stack.layer, layers):
            _attention(layer_spec.self_attention, layer.attn, self_attention=True)
            _norm(layer_spec.self_attention.layer_norm, layer.n1)
            if stack is spec.decoder:
                _attention(layer_spec.attention, layer.cross, self_attention=False)
                _norm(layer_spec.attention.layer_norm, layer.n3)
            _linear(layer_spec.ffn.linear_0, layer.ffn[0])
            _linear(layer_spec.ffn.linear_1, layer.ffn[3])
            _norm(layer_spec.ffn.layer_norm, layer.n2)
    _linear(spec.decoder.projection, model.out)
    spec.config.layer_norm_epsilon = first.n1.eps
    _vocabulary(spec, model.src_embed.num_embeddings, model.vocab_size, model.bos_id, model.eos_id)
    return spec


def t5_spec(hf_model: Any) -> Any:
    """The CTranslate2 spec of a Hugging Face T5 (CTranslate2's own loader; ids as `t<id>` tokens)."""
    _ct2()
    from ctranslate2.converters.transformers import T5Loader

    loader = T5Loader()
    spec = loader.get_model_spec(hf_model)
    size = hf_model.config.vocab_size
    start = hf_model.config.decoder_start_token_id
    _vocabulary(spec, size, size, start, hf_model.config.eos_token_id)
    return spec


def _vocabulary(spec: Any, src_size: int, tgt_size: int, bos_id: int, eos_id: int) -> None:
    spec.register_source_vocabulary(id_tokens(src_size))
    spec.register_target_vocabulary(id_tokens(tgt_size))
    spec.config.bos_token = spec.config.decoder_start_token = f"t{bos_id}"
    spec.config.eos_token = f"t{eos_id}"
    spec.config.unk_token = f"t{bos_id}"


def save(spec: Any, out: str | Path, quantization: str = "int8") -> Path:
    """Write `spec` as a CTranslate2 model folder (weights quantized to `quantization`)."""
    ct2 = _ct2()

    class _Given(ct2.converters.Converter):
        def _load(self) -> Any:
            return spec

    return Path(_Given().convert(str(out), quantization=quantization, force=True))
