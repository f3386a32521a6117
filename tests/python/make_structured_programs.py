"""torch.export programs whose forward takes keyword arguments and dicts and returns nested results,
each with PyTorch's own outputs for its sample inputs:
  kw.pt2       forward(x, d, scale=None) with d = {"a": …, "b": …} and scale by keyword;
               returns (h, [relu(h), sigmoid(h)])
  dictout.pt2  forward(x, mask=None) returning {"logits": …, "past": [(…, …)]}
  kwconst.pt2  forward(x, use_cache=True, scale=None) exported with use_cache=False: a keyword
               fixed at export, which the program keeps as a constant input between two tensors
  state.pt2    a parameter, a persistent and a non-persistent buffer and a lifted constant
  bert_kw.pt2  a small BERT (transformers, random weights) with attention_mask by keyword,
               returning its output class (last_hidden_state, pooler_output)
  <name>.ref.json: "outputs" (each flat output's path: list/tuple items by index, dict items and
  output-class fields by name, joined with "."), "inputs" (the flat inputs' paths) and
  <name>.out.pt: PyTorch's flat outputs of ep.module() on the sample inputs
Run: .venv/bin/python make_structured_programs.py OUTDIR
"""
import json
import os
import sys

import torch
import torch.utils._pytree as pytree


class KeywordsAndDict(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x, d, scale=None):
        h = self.lin(x) * scale + d["a"] - d["b"]
        return h, [h.relu(), h.sigmoid()]


class DictOut(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x, mask=None):
        h = self.lin(x) + mask
        return {"logits": h, "past": [(h.relu(), h.tanh())]}


class ConstantKeyword(torch.nn.Module):
    """A keyword that torch.export fixes as a constant input (use_cache=False, as for an LLM)."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x, use_cache=True, scale=None):
        h = self.lin(x)
        if use_cache:
            h = h * 2
        return h * scale


class State(torch.nn.Module):
    """A parameter, a persistent and a non-persistent buffer, and a lifted tensor constant."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
        self.register_buffer("scale", torch.full((8,), 2.0))
        self.register_buffer("shift", torch.full((8,), 0.5), persistent=False)
        self.offset = torch.arange(8.0)

    def forward(self, x):
        return self.lin(x) * self.scale + self.shift + self.offset


def bert():
    import transformers

    config = transformers.BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=64, max_position_embeddings=32)
    return transformers.BertModel(config).eval()


def key_name(k):
    for attr in ("idx", "key", "name"):
        if hasattr(k, attr):
            return str(getattr(k, attr))
    return str(k)


def path_of(keys):
    return ".".join(key_name(k) for k in keys)


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    x = torch.randn(2, 8)
    cases = {
        "kw": (KeywordsAndDict(), (x, {"a": torch.randn(2, 8), "b": torch.randn(2, 8)}), {"scale": torch.tensor(2.0)}),
        "dictout": (DictOut(), (x,), {"mask": torch.randn(2, 8)}),
        "kwconst": (ConstantKeyword(), (x,), {"use_cache": False, "scale": torch.tensor(3.0)}),
        "state": (State(), (x,), {}),
        "bert_kw": (bert(), (torch.randint(0, 64, (2, 12)),), {"attention_mask": torch.ones(2, 12, dtype=torch.long)}),
    }
    for name, (model, args, kwargs) in cases.items():
        path = os.path.join(out, name + ".pt2")
        if os.path.exists(path):
            continue
        ep = torch.export.export(model.eval(), args, kwargs, strict=False)
        with torch.no_grad():
            result = ep.module()(*args, **kwargs)
        leaves, _ = pytree.tree_flatten_with_path(result)
        arg_names = ep.module_call_graph[0].signature.forward_arg_names
        in_leaves, _ = pytree.tree_flatten_with_path((args, kwargs))
        inputs = []
        for keys, leaf in in_leaves:
            if not isinstance(leaf, torch.Tensor):
                continue  # a constant input: the program holds it, no run supplies it
            first, rest = keys[0], keys[1:]
            if key_name(first) == "0":  # positional: named by forward's argument names
                inputs.append(".".join([arg_names[int(key_name(rest[0]))]] + [key_name(k) for k in rest[1:]]))
            else:
                inputs.append(path_of(rest))
        torch.save([t for _, t in leaves], os.path.join(out, name + ".out.pt"))
        with open(os.path.join(out, name + ".ref.json"), "w") as f:
            json.dump({"outputs": [path_of(k) or "output" for k, _ in leaves], "inputs": inputs}, f)
        tmp = os.path.join(out, ".tmp." + name + ".pt2")
        torch.export.save(ep, tmp)
        os.replace(tmp, path)


if __name__ == "__main__":
    main(sys.argv[1])
