"""Entity and relation linking: a persistent KB index (index.py), where its entries come from
(sources.py), the words people use for properties and classes (wordforms.py), and the linker that
turns a question into candidate KB elements (linker.py)."""
