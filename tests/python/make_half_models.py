"""Hugging Face models whose float16 question matters, exported at float32 with torch.export, and
what stock PyTorch says about them. Usage: .venv/bin/python make_half_models.py OUT_DIR

- bart.pt2 (input_ids, attention_mask): BartModel, whose `.to(inputs_embeds.device)` the capture
  records as a float32 cast, so the program's own ops keep the residual stream in float32 where
  `model.half()` does not. facts.json holds the eager model's error under `.half()` against its
  float64 run (max_abs and SQNR in dB).
- qwen2.pt2 (input_ids): Qwen2Model with one norm weight x3e3, so float16 overflows in layer 1's
  MLP (stock `.half()` gives no finite output). facts.json holds how many outputs are finite.
- range.pt (x: 4x16): a traced TorchScript MLP whose outputs reach beyond float16's largest value
  (65504), so no node kept in float32 can help. facts.json names the first module whose output
  leaves the range (stock forward hooks) and the outputs' largest magnitude.
Random weights from a fixed seed; nothing is downloaded."""
import copy
import json
import os
import sys

import torch
import transformers


class LastHidden(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask=None):
        if attention_mask is None:
            return self.model(input_ids=input_ids, use_cache=False).last_hidden_state
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def sqnr_db(y, reference):
    if not torch.isfinite(y).all():
        return None
    return float(10 * torch.log10((reference ** 2).sum() / ((y - reference) ** 2).sum()))


def bart(out, facts):
    config = transformers.BartConfig(vocab_size=128, d_model=32, encoder_layers=2, decoder_layers=2,
                                     encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                                     decoder_ffn_dim=64, max_position_embeddings=64)
    model = LastHidden(transformers.BartModel(config).eval())
    ids = torch.randint(0, 128, (1, 16))
    mask = torch.ones(1, 16, dtype=torch.long)
    mask[0, 12:] = 0
    torch.export.save(torch.export.export(model, (ids, mask)), os.path.join(out, "bart.pt2"))
    torch.save(ids, os.path.join(out, "bart.ids.pt"))
    torch.save(mask, os.path.join(out, "bart.mask.pt"))
    with torch.no_grad():
        reference = copy.deepcopy(model).double()(ids, mask)
        half = copy.deepcopy(model).half()(ids, mask).double()
    facts["bart"] = {"half_max_abs": float((half - reference).abs().max()), "half_sqnr_db": sqnr_db(half, reference)}


def qwen2(out, facts):
    config = transformers.Qwen2Config(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    inner = transformers.Qwen2Model(config).eval()
    with torch.no_grad():
        inner.layers[1].post_attention_layernorm.weight.mul_(3e3)
    model = LastHidden(inner)
    ids = torch.randint(0, 128, (1, 16))
    torch.export.save(torch.export.export(model, (ids,)), os.path.join(out, "qwen2.pt2"))
    torch.save(ids, os.path.join(out, "qwen2.ids.pt"))
    with torch.no_grad():
        half = copy.deepcopy(model).half()(ids)
    facts["qwen2"] = {"half_finite": int(half.isfinite().sum()), "outputs": half.numel()}


def beyond_range(out, facts):
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 8)).eval()
    with torch.no_grad():
        for layer in (model[0], model[2], model[4]):
            layer.weight.mul_(100.0)
    x = torch.randn(4, 16)
    first = []

    def hook(name):
        def record(_module, _inputs, output):
            if not first and output.abs().max() > 65504:
                first.append(name)
        return record

    handles = [module.register_forward_hook(hook(name)) for name, module in model.named_children()]
    with torch.no_grad():
        y = model(x)
    for handle in handles:
        handle.remove()
    torch.jit.trace(model, (x,)).save(os.path.join(out, "range.pt"))
    torch.save(x, os.path.join(out, "range.x.pt"))
    facts["range"] = {"first_beyond": first[0] if first else None, "outputs_max_abs": float(y.abs().max())}


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    facts = {}
    bart(out, facts)
    qwen2(out, facts)
    beyond_range(out, facts)
    with open(os.path.join(out, "facts.json"), "w") as f:
        json.dump(facts, f)


if __name__ == "__main__":
    main(sys.argv[1])
