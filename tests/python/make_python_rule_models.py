"""Models for tst_python_rules, each as a traced .pt and an exported .pt2, with the inputs (a
torch.save'd tuple) and stock PyTorch's outputs:

  custom_model   the torch.fx walkthrough's CustomModel: Linear(10, 5) then relu
  silu_mlp       Linear, SiLU, Linear, ReLU on a 3-D input (silu-decompose, fuse-linear-relu)
  linear_bn      Linear + BatchNorm1d, with and without a bias (fold-linear-bn)

  python make_python_rule_models.py OUTDIR
"""
import os
import sys
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")


class CustomModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(10, 5)

    def forward(self, x):
        return F.relu(self.linear(x))


def randomise_bn(model):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm1d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)
    return model


MODELS = {
    "custom_model": (CustomModel, (3, 10)),
    "silu_mlp": (lambda: nn.Sequential(nn.Linear(8, 16), nn.SiLU(), nn.Linear(16, 8), nn.ReLU()), (2, 3, 8)),
    "linear_bn": (lambda: nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(),
                                        nn.Linear(16, 4, bias=False), nn.BatchNorm1d(4)), (5, 8)),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, (factory, shape) in MODELS.items():
        base = os.path.join(out, name)
        if os.path.exists(base + ".pt2"):
            continue
        torch.manual_seed(0)
        model = randomise_bn(factory()).eval()
        x = torch.randn(*shape)
        with torch.no_grad():
            torch.jit.trace(model, x, check_trace=False).save(base + ".pt")
            torch.save((x,), base + ".inputs.pt")
            torch.save(model(x), base + ".outputs.pt")
            torch.export.save(torch.export.export(model, (x,)), base + ".tmp.pt2")
        os.replace(base + ".tmp.pt2", base + ".pt2")


if __name__ == "__main__":
    main()
