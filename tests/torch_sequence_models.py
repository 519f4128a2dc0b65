"""The sequence models of tests/torch_corpus.py: transformers BERT, GPT-2 with its key/value
cache, wav2vec2 (a speech encoder), and 2-layer bidirectional LSTM and GRU nets. Tiny
configs with random weights; builders return what tests/torch_models.py's do."""

from __future__ import annotations

from collections.abc import Callable

from tests.torch_models import randomize_norms

__all__ = ["SEQUENCE_BUILDERS"]

_VOCAB = 100
_SMALL = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
          "intermediate_size": 64}


def _tokens(shape: tuple[int, ...]) -> list:
    import torch

    return [torch.randint(0, _VOCAB, shape) for _ in range(2)]


def _bert():
    import torch
    from transformers import BertConfig, BertModel

    model = BertModel(BertConfig(vocab_size=_VOCAB, max_position_embeddings=64, **_SMALL),
                      add_pooling_layer=False).eval()
    randomize_norms(model, ())

    class Bert(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, ids, mask):
            return self.inner(input_ids=ids, attention_mask=mask).last_hidden_state

    mask = torch.ones(1, 12, dtype=torch.int64)
    mask[0, 9:] = 0
    ids, ids2 = _tokens((1, 12))
    return (Bert().eval(), (ids, mask), (ids2, mask),
            (["input_ids", "attention_mask"], ["hidden"]))


def _gpt2_past():
    """One decoding step of 3 new tokens after 5 cached ones: logits and the grown cache."""
    import torch
    from transformers import DynamicCache, GPT2Config, GPT2LMHeadModel

    config = GPT2Config(vocab_size=_VOCAB, n_positions=64, n_embd=32, n_layer=2, n_head=2)
    model = GPT2LMHeadModel(config).eval()
    randomize_norms(model, ())

    class Step(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, ids, k0, v0, k1, v1):
            cache = DynamicCache(config=config)
            cache.update(k0, v0, 0)
            cache.update(k1, v1, 1)
            out = self.inner(input_ids=ids, past_key_values=cache, use_cache=True)
            grown = out.past_key_values
            return (out.logits, *(t for layer in range(2) for t in (
                grown.layers[layer].keys, grown.layers[layer].values)))

    def step_inputs(ids):
        return (ids, *(torch.randn(1, 2, 5, 16) for _ in range(4)))

    past = ["past_k0", "past_v0", "past_k1", "past_v1"]
    ids, ids2 = _tokens((1, 3))
    return (Step().eval(), step_inputs(ids), step_inputs(ids2),
            (["input_ids", *past], ["logits", *(f"present_{p[5:]}" for p in past)]))


def _wav2vec2():
    import torch
    from transformers import Wav2Vec2Config, Wav2Vec2Model

    config = Wav2Vec2Config(**_SMALL, conv_dim=(32, 32), conv_stride=(5, 2),
                            conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                            num_conv_pos_embedding_groups=2, feat_extract_norm="layer",
                            do_stable_layer_norm=True)
    model = Wav2Vec2Model(config).eval()
    randomize_norms(model, ())

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, audio):
            return self.inner(audio).last_hidden_state

    return (Encoder().eval(), (torch.randn(1, 800),), (torch.randn(1, 800),),
            (["audio"], ["hidden"]))


def _recurrent(kind: str) -> Callable:
    def build():
        import torch

        class Net(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                cell = torch.nn.LSTM if kind == "lstm" else torch.nn.GRU
                self.rnn = cell(8, 16, num_layers=2, bidirectional=True, batch_first=True)
                self.head = torch.nn.Linear(32, 3)

            def forward(self, x):
                return self.head(self.rnn(x)[0])

        args = [(torch.randn(2, 7, 8),) for _ in range(2)]
        return Net().eval(), *args, (["x"], ["y"])
    return build


SEQUENCE_BUILDERS: dict[str, Callable] = {
    "bert": _bert, "gpt2_past": _gpt2_past, "wav2vec2": _wav2vec2,
    "bilstm": _recurrent("lstm"), "bigru": _recurrent("gru"),
}
