"""The inference layer shared by `evaluate`, `translate` and `serve` (and training's final evaluation).

tokenizer.py: the tokenizer a model reads (built at training, reloaded at inference);
decode.py: annotated questions -> n-best query tokens; kb.py: the KB answers come from;
evaluate.py: a split decoded, executed, scored and reported.
Questions reach them through the one annotator, nmt_sparql/annotation/annotator.py.
"""
