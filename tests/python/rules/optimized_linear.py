"""The torch.fx walkthrough's OptimizedLinear: x @ W^T + b, built from an nn.Linear's attributes."""
import torch
import torch.nn as nn


class OptimizedLinear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, x):
        return x @ self.weight.T + self.bias


class RenamedLinear(nn.Module):
    """Parameters named `kernel` and `offset`: `--param kernel=weight --param offset=bias`."""

    @classmethod
    def from_module(cls, old):
        return cls(old.in_features, old.out_features)

    def __init__(self, in_features, out_features):
        super().__init__()
        self.kernel = nn.Parameter(torch.zeros(out_features, in_features))
        self.offset = nn.Parameter(torch.zeros(out_features))

    def forward(self, x):
        return torch.addmm(self.offset, x.reshape(-1, x.shape[-1]), self.kernel.t()).reshape(*x.shape[:-1], -1)
