"""Chains for bench_reduce: N elementwise ops (x * a_i + b_i, traced to aten::mul and aten::add)
on a [256] input, whose float16 rounding drifts until some op leaves tolerance; and the same chain
with one exp that overflows float16 early on (op N/16).
Writes OUT/chain_<N>.pt, OUT/chain_exp_<N>.pt and OUT/chain.x.pt.
Usage: .venv/bin/python make_chain_models.py OUT N [N ...]"""
import os
import sys

import torch


class Chain(torch.nn.Module):
    def __init__(self, n, overflow_at=None):
        super().__init__()
        g = torch.Generator().manual_seed(n)
        self.a = [float(v) for v in torch.empty(n // 2).uniform_(0.97, 1.03, generator=g)]
        self.b = [float(v) for v in torch.empty(n // 2).uniform_(-0.01, 0.01, generator=g)]
        self.overflow_at = overflow_at

    def forward(self, x):
        for i, (a, b) in enumerate(zip(self.a, self.b)):
            if i == self.overflow_at:
                x = torch.exp(x * 16.0) * 1e-6
            x = x * a + b
        return x


def main(out, sizes):
    os.makedirs(out, exist_ok=True)
    x = torch.rand(256) + 0.5
    torch.save(x, os.path.join(out, "chain.x.pt"))
    for n in sizes:
        for name, model in [(f"chain_{n}.pt", Chain(n)), (f"chain_exp_{n}.pt", Chain(n, overflow_at=n // 32))]:
            path = os.path.join(out, name)
            if not os.path.exists(path):
                torch.jit.save(torch.jit.trace(model.eval(), x), path)


if __name__ == "__main__":
    main(sys.argv[1], [int(n) for n in sys.argv[2:]])
