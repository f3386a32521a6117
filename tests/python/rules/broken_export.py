import torch


def pattern(x):
    if x.sum() > 0:  # data-dependent control flow: torch.export refuses it
        return torch.relu(x)
    return torch.sigmoid(x)


def replacement(x):
    return torch.clamp_min(x, 0)
