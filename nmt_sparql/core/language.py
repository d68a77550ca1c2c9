"""Which of a KB element's labels to show: one language priority for every label reader."""

from __future__ import annotations


def label_rank(language: str | None) -> int | None:
    """0 for English, 1 for a regional English (en-GB), 2 for an untagged label; None: not used.

    Questions are English, so a label in another language would teach the linker and the model
    words no user types.
    """
    tag = (language or "").lower()
    if tag == "en":
        return 0
    if tag.startswith("en-"):
        return 1
    return 2 if not tag else None
