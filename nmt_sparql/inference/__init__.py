"""The inference layer shared by `evaluate`, `translate` and `serve` (and training's final evaluation).

encoder.py: the tokenization a model reads (built at training, reloaded at inference);
annotator.py: the model input of a question, through the KB linker where the model needs KB elements;
decode.py: annotated questions -> query tokens; kb.py: the KB answers come from;
evaluate.py: a split scored and reported.
"""
