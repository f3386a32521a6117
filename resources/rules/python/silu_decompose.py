"""silu as x * sigmoid(x): the Python twin of silu-decompose.rule."""
import torch
import torch.nn.functional as F


def pattern(x):
    return F.silu(x)


def replacement(x):
    return x * torch.sigmoid(x)
