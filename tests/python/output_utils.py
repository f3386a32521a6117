"""Helpers shared by the reference scripts."""
import torch


def flatten(value, out=None):
    """The tensors of a nested output (tensors, tuples, lists, dicts in their order), in order."""
    out = [] if out is None else out
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            flatten(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            flatten(v, out)
    return out
