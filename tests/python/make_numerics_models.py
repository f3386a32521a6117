"""Models for the numerics debugger (tst_numerics): precision comparisons, local error, reduce.

Writes into OUTDIR/numerics (skipping files already there):
  culprit.pt, culprit.pt2   a small transformer-like network (linear blocks with layer norm) with
                            one hand-written attention whose softmax does not subtract the maximum,
                            so exp overflows in float16; traced, and exported with torch.export
  culprit.x.pt              an input; culprit.half.pt PyTorch's output of model.half()(x.half())
  accumulate.pt             twelve tanh(linear) layers: float16 error only accumulates, no node is bad
  accumulate.x.pt, accumulate.half.pt  as above
  numerics.json             what the tests expect: the bad module and op
Run with the venv interpreter: .venv/bin/python make_numerics_models.py OUTDIR
"""
import copy
import json
import os
import sys

import torch
import torch.nn as nn


class NaiveAttention(nn.Module):
    """Softmax written by hand without subtracting the maximum: exp overflows float16."""

    def __init__(self, d):
        super().__init__()
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x):
        logits = self.q(x) @ self.k(x).transpose(-1, -2) * 4.0
        e = torch.exp(logits)
        return (e / e.sum(-1, keepdim=True)) @ self.v(x)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1, self.fc2, self.norm = nn.Linear(d, 2 * d), nn.Linear(2 * d, d), nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(x + self.fc2(torch.relu(self.fc1(x))))


class Culprit(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.embed, self.block1, self.attn = nn.Linear(16, d), Block(d), NaiveAttention(d)
        self.block2, self.head = Block(d), nn.Linear(d, 8)

    def forward(self, x):
        h = self.block1(self.embed(x))
        h = h + self.attn(h)
        return self.head(self.block2(h))


class Accumulate(nn.Module):
    def __init__(self, d=64, n=12):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(d, d) for _ in range(n)])

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return x


def save_atomic(obj, path, saver=torch.save):
    tmp = os.path.join(os.path.dirname(path), ".tmp." + os.path.basename(path))
    saver(obj, tmp)
    os.replace(tmp, path)


def main(outdir):
    out = os.path.join(outdir, "numerics")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name, model, x in [("culprit", Culprit(), torch.randn(1, 24, 16)), ("accumulate", Accumulate(), torch.randn(4, 64))]:
        path = os.path.join(out, name + ".pt")
        if os.path.exists(path):
            continue
        model.eval()
        with torch.no_grad():
            save_atomic(x, os.path.join(out, name + ".x.pt"))
            if name == "culprit":
                save_atomic(torch.export.export(model, (x,)), os.path.join(out, name + ".pt2"), torch.export.save)
            traced = torch.jit.trace(model, x)
            half = copy.deepcopy(model).half()(x.half())  # the traced module shares the weights
            save_atomic(half, os.path.join(out, name + ".half.pt"))
        save_atomic(traced, path, torch.jit.save)
    with open(os.path.join(out, "numerics.json"), "w") as f:
        json.dump({"culprit": {"module_path": "attn", "op": "aten::exp"}}, f)


if __name__ == "__main__":
    main(sys.argv[1])
