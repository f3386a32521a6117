"""A scripted model whose __setstate__ counts to N before it returns (loading it with trust takes
seconds), for the window's Cancel of an open:
  slow_open.pt
Run: .venv/bin/python make_slow_open.py OUTDIR [N]
"""
import os
import sys
from typing import Tuple

import torch


class SlowSetstate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0
        self.count = 0

    @torch.jit.export
    def __getstate__(self):
        return (self.scale, self.training, self.count)

    @torch.jit.export
    def __setstate__(self, state: Tuple[float, bool, int]):
        i = 0
        while i < state[2]:
            i = i + 1
        self.scale = state[0]
        self.training = state[1]
        self.count = state[2]

    def forward(self, x):
        return x * self.scale


if __name__ == "__main__":
    model = SlowSetstate().eval()
    model.count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000_000
    os.makedirs(sys.argv[1], exist_ok=True)
    torch.jit.script(model).save(os.path.join(sys.argv[1], "slow_open.pt"))
