"""Small traced models, one per built-in rewrite rule, for numeric checks in stock PyTorch.

Writes OUTDIR/rewrite/<name>.pt (skipping files already there) and shapes.json {name: input shape}.
Batch-norm statistics are randomised so folding is not an identity.
Run with the venv interpreter: .venv/bin/python make_rewrite_models.py OUTDIR
"""
import json
import os
import sys

import torch
import torch.nn as nn


def randomise_bn(model):
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            with torch.no_grad():
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
    return model


class AddRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.fc(x) + x)


class MatmulAdd(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8, 4))
        self.b = nn.Parameter(torch.randn(4))

    def forward(self, x):
        return torch.matmul(x, self.w) + self.b


class Activations(nn.Module):
    def forward(self, x):
        return nn.functional.silu(x) + nn.functional.hardswish(x * 3) + nn.functional.gelu(x)


MODELS = {
    "conv_bn": (lambda: nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                      nn.Conv2d(8, 4, 3, bias=False), nn.BatchNorm2d(4)), [2, 3, 12, 12]),
    "linear_bn": (lambda: nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(),
                                        nn.Linear(16, 4, bias=False), nn.BatchNorm1d(4)), [5, 8]),
    "add_relu": (AddRelu, [3, 8]),
    "matmul_add": (MatmulAdd, [3, 5, 8]),
    "dropout": (lambda: nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.ReLU()), [3, 8]),
    "activations": (Activations, [3, 8]),
    # Every eval-mode dropout as traced: dropout_ (inplace=True), feature_dropout (Dropout2d),
    # alpha_dropout, feature_alpha_dropout and feature_dropout_.
    "dropouts": (lambda: nn.Sequential(nn.Conv2d(4, 4, 1), nn.Dropout(0.2, inplace=True), nn.Dropout2d(0.2), nn.ReLU(),
                                       nn.AlphaDropout(0.1), nn.FeatureAlphaDropout(0.1), nn.Dropout2d(0.3, inplace=True)),
                 [2, 4, 6, 6]),
    # 3-D input: the fused form flattens to 2-D and back; the last linear has no bias (no match).
    "linear_relu": (lambda: nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4, bias=False), nn.ReLU()),
                    [2, 3, 8]),
}


def main():
    outdir = os.path.join(sys.argv[1], "rewrite")
    os.makedirs(outdir, exist_ok=True)
    shapes = {}
    for name, (factory, shape) in MODELS.items():
        shapes[name] = shape
        path = os.path.join(outdir, name + ".pt")
        if os.path.exists(path):
            continue
        torch.manual_seed(0)
        model = randomise_bn(factory()).eval()
        with torch.no_grad():
            traced = torch.jit.trace(model, torch.randn(*shape), check_trace=False)
        traced.save(path + ".tmp")
        os.replace(path + ".tmp", path)
    with open(os.path.join(outdir, "shapes.json"), "w") as f:
        json.dump(shapes, f)


if __name__ == "__main__":
    main()
