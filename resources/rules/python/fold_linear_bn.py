"""Fold an eval-mode batch_norm into the linear before it: the Python twin of fold-linear-bn.

batch_norm(linear(x, W, b)) becomes one linear whose weight rows are scaled by gamma / sqrt(var + eps)
and whose bias is (b - mean) * scale + beta. The text rule computes the folded weights once; this
twin computes them in the graph from the same constants. One rule for a linear with a bias, one for
a linear without.
"""
import torch
import torch.nn.functional as F

from graft.rules import Rule, Tensor

EPS = 1e-5
MOMENTUM = 0.1


def pattern(x: Tensor[2], w: Tensor[2], b: Tensor[1], gamma: Tensor[1], beta: Tensor[1],
            mean: Tensor[1], var: Tensor[1]):
    return F.batch_norm(F.linear(x, w, b), mean, var, gamma, beta, False, MOMENTUM, EPS)


def replacement(x: Tensor[2], w: Tensor[2], b: Tensor[1], gamma: Tensor[1], beta: Tensor[1],
                mean: Tensor[1], var: Tensor[1]):
    scale = gamma * torch.rsqrt(var + EPS)
    return F.linear(x, w * scale.unsqueeze(1), (b - mean) * scale + beta)


def pattern_no_bias(x: Tensor[2], w: Tensor[2], gamma: Tensor[1], beta: Tensor[1],
                    mean: Tensor[1], var: Tensor[1]):
    return F.batch_norm(F.linear(x, w), mean, var, gamma, beta, False, MOMENTUM, EPS)


def replacement_no_bias(x: Tensor[2], w: Tensor[2], gamma: Tensor[1], beta: Tensor[1],
                        mean: Tensor[1], var: Tensor[1]):
    scale = gamma * torch.rsqrt(var + EPS)
    return F.linear(x, w * scale.unsqueeze(1), beta - mean * scale)


RULES = [
    Rule(pattern, replacement, name="fold-linear-bn-py",
         description="batch_norm after linear folded into the linear's weight and bias",
         condition="%b != None"),
    Rule(pattern_no_bias, replacement_no_bias, name="fold-linear-bn-nobias-py",
         description="batch_norm after a linear without bias folded into its weight and a bias"),
]
