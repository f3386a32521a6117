"""Reference models for tst_run, traced with stock PyTorch.

Writes into OUTDIR:
  run_cnn.pt        a small CNN with distinct ReLU modules (act1, act2, act3)
  run_cnn_gelu.pt   the same weights with act2 a GELU
  run_tuple.pt      forward(x, (y, z)) -> (x + y, [z * 2, x.sum()]): tuple/list inputs and outputs
  run_x.pt / run_x.npy   one input tensor, torch.save'd and as .npy
  run_cnn.out.pt    stock PyTorch's output of run_cnn on run_x
Run with the venv interpreter: .venv/bin/python make_run_models.py OUTDIR
"""
import copy
import os
import sys

import numpy
import torch


class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.act1 = torch.nn.ReLU()
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.act2 = torch.nn.ReLU()
        self.conv3 = torch.nn.Conv2d(8, 4, 3, padding=1)
        self.act3 = torch.nn.ReLU()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        x = self.act1(self.conv1(x))
        x = self.act2(self.conv2(x))
        x = self.act3(self.conv3(x))
        return self.fc(x.mean(dim=(2, 3)))


class Tuple(torch.nn.Module):
    def forward(self, x, pair: tuple[torch.Tensor, torch.Tensor]):
        y, z = pair
        return x + y, [z * 2, x.sum()]


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    model = Cnn().eval()
    x = torch.randn(2, 3, 16, 16)
    with torch.no_grad():
        torch.jit.trace(model, x, check_trace=False).save(os.path.join(outdir, "run_cnn.pt"))
        variant = copy.deepcopy(model)
        variant.act2 = torch.nn.GELU()
        torch.jit.trace(variant, x, check_trace=False).save(os.path.join(outdir, "run_cnn_gelu.pt"))
        torch.jit.script(Tuple()).save(os.path.join(outdir, "run_tuple.pt"))
        torch.save(x, os.path.join(outdir, "run_x.pt"))
        numpy.save(os.path.join(outdir, "run_x.npy"), x.numpy())
        torch.save(model(x), os.path.join(outdir, "run_cnn.out.pt"))


if __name__ == "__main__":
    main(sys.argv[1])
