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


def compare_flat(want, got, atol, rtol):
    """(close, max_abs) of two flat tensor lists: same count and shapes, and every difference within
    atol + rtol * the reference's largest magnitude."""
    close = len(want) == len(got)
    max_abs = 0.0
    for a, b in zip(want, got):
        m = (a.double() - b.double()).abs().max().item() if a.numel() else 0.0
        max_abs = max(max_abs, m)
        close = close and a.shape == b.shape and m <= atol + rtol * a.abs().max().item()
    return close, max_abs
