"""Fuse linear + relu into aten::_addmm_activation: the Python twin of fuse-linear-relu.rule.

relu(linear(x, W, b)) becomes one _addmm_activation(b, x2, W^T), which applies the relu inside the
matrix multiply; x is flattened to 2-D and the result reshaped back. Needs a bias.
"""
import torch
import torch.nn.functional as F

from graft.rules import Rule, Tensor


def pattern(x: Tensor[2], w: Tensor[2], b: Tensor[1]):
    return F.relu(F.linear(x, w, b))


def replacement(x: Tensor[2], w: Tensor[2], b: Tensor[1]):
    x2 = x.reshape(-1, x.shape[-1])
    r = torch._addmm_activation(b, x2, w.t())
    return r.reshape(list(x.shape[:-1]) + [w.shape[0]])


RULES = [Rule(pattern, replacement, name="fuse-linear-relu-py",
              description="relu(linear(x, W, b)) as one _addmm_activation (needs a bias)",
              condition="%b != None")]
