"""Two small torch.export programs that compute different things, for tst_remote: a remote B's
first divergence and per-node rows must be the local ones.
  mlp_a.pt2   Linear(16,32) -> relu -> Linear(32,32) -> relu -> Linear(32,4), input 2x16
  mlp_b.pt2   the same with the second Linear's weight scaled by 1.01
Run: .venv/bin/python make_remote_pair.py OUTDIR
"""
import os
import sys

import torch


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    a = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32), torch.nn.ReLU(),
                            torch.nn.Linear(32, 4)).eval()
    x = (torch.randn(2, 16),)
    torch.export.save(torch.export.export(a, x), os.path.join(out, "mlp_a.pt2"))
    with torch.no_grad():
        a[2].weight.mul_(1.01)
    torch.export.save(torch.export.export(a, x), os.path.join(out, "mlp_b.pt2"))


if __name__ == "__main__":
    main(sys.argv[1])
