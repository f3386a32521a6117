"""Rewrite rules written as Python, the way torch.fx's replace_pattern takes them.

A rule file (`graft-cli rewrite M --rule my_rules.py`) defines either two functions with the
same arguments,

    def pattern(x, w, b):
        return torch.relu(torch.nn.functional.linear(x, w, b))

    def replacement(x, w, b):
        return torch.clamp_min(torch.nn.functional.linear(x, w, b), 0)

or a list of rules:

    RULES = [Rule(pattern, replacement, name="linear-relu-clamp",
                  description="relu after linear as clamp_min",
                  condition=["%b != None", "module ~ layer*"])]

Graft runs the file with this Python (never a model file), turns each function into ATen graphs
(torch.jit.trace / torch.jit.script for TorchScript models, torch.export for torch.export
programs) and matches them with its rule engine. Every argument is a tensor; its rank comes from
its annotation (`x: Tensor[4]`, a rank-4 example) or is 2. `condition` takes the text rules'
conditions (`%b != None`, `%w rank 2`, `%x dtype float32`, `module ~ GLOB`). `example_inputs`
(a tuple of tensors, or a function returning one) replaces the made-up example inputs.
"""

__all__ = ["Rule", "Tensor", "DEFAULT_RANK", "EXAMPLE_SIZE"]

DEFAULT_RANK = 2
EXAMPLE_SIZE = 4


class _TensorSpec:
    """An argument's annotation: the rank (and dtype) of the example Graft makes for it."""

    def __init__(self, rank=DEFAULT_RANK, dtype=None, shape=None):
        self.rank = len(shape) if shape is not None else int(rank)
        self.dtype = dtype
        self.shape = tuple(shape) if shape is not None else None

    def example(self):
        import torch

        shape = self.shape if self.shape is not None else (EXAMPLE_SIZE,) * self.rank
        dtype = self.dtype or torch.float32
        if dtype.is_floating_point:
            return torch.randn(shape, dtype=dtype)
        if dtype == torch.bool:
            return torch.rand(shape) > 0.5
        return torch.randint(0, EXAMPLE_SIZE, shape, dtype=dtype)

    def __repr__(self):
        return f"Tensor[{self.rank}]"


class _TensorAnnotation:
    """`Tensor[4]`: a rank-4 tensor argument; `Tensor[4, torch.int64]` with its dtype;
    `Tensor.shape(1, 3, 8, 8)`: an exact example shape."""

    def __getitem__(self, item):
        if isinstance(item, tuple):
            return _TensorSpec(rank=item[0], dtype=item[1] if len(item) > 1 else None)
        return _TensorSpec(rank=item)

    @staticmethod
    def shape(*dims, dtype=None):
        return _TensorSpec(shape=dims, dtype=dtype)

    def __repr__(self):
        return "Tensor"


Tensor = _TensorAnnotation()


class Rule:
    """One rewrite: `pattern` and `replacement` take the same arguments and return one tensor.

    name: the rule's id in reports (letters, digits, '.', '_', '-'); by default the pattern
    function's name. description: one line for the rule list. condition: a string or a list of
    the text rules' conditions. example_inputs: a tuple of tensors (or a function returning one)
    used instead of the examples made from the annotations."""

    def __init__(self, pattern, replacement, name=None, description="", condition=None, example_inputs=None):
        if not callable(pattern) or not callable(replacement):
            raise TypeError("Rule(pattern, replacement, ...) takes two functions")
        self.pattern = pattern
        self.replacement = replacement
        self.name = name or pattern.__name__
        self.description = description or ""
        if condition is None:
            condition = []
        elif isinstance(condition, str):
            condition = [condition]
        self.condition = [str(c) for c in condition]
        self.example_inputs = example_inputs

    def __repr__(self):
        return f"Rule({self.name!r})"
