"""Fuse matmul + add + relu into aten::_addmm_activation

The hand-written linear of the torch.fx tutorials and its relu become one matrix multiply that adds the bias and applies the relu.

relu(matmul(x, Wt) + b) becomes _addmm_activation(b, x, Wt): three ops, one pass over memory.
The fused op multiplies 2-D matrices, so the rule holds where x is 2-D (`%x rank 2`).
"""
import torch

from graft.rules import Rule, Tensor


def pattern(x: Tensor[2], wt: Tensor[2], b: Tensor[1]):
    return torch.relu(torch.matmul(x, wt) + b)


def replacement(x: Tensor[2], wt: Tensor[2], b: Tensor[1]):
    return torch._addmm_activation(b, x, wt)


RULES = [Rule(pattern, replacement, name="fuse-matmul-add-relu",
              description="relu(matmul(x, Wt) + b) as one _addmm_activation, for a 2-D x",
              condition="%x rank 2")]
