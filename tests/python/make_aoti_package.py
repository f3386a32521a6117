"""Writes tests/data/programs/aoti_linear.pt2: an AOTInductor package (compiled code, no graph).

It is committed because compiling it takes minutes; Graft only has to tell it apart from a
torch.export program. Run: .venv/bin/python tests/python/make_aoti_package.py OUT.pt2
"""
import sys

import torch


class LinearRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.linear(x))


if __name__ == "__main__":
    program = torch.export.export(LinearRelu(), (torch.randn(2, 4),))
    torch._inductor.aoti_compile_and_package(program, package_path=sys.argv[1])
