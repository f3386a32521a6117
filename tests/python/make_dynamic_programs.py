"""torch.export programs that compute with their symbolic sizes, each run by stock PyTorch at two
sizes of its dynamic dimension:
  <name>.pt2, <name>.ref.json (ops as torch.export counts them: call_function nodes whose target
  is an operator overload; the sizes), <name>.<size>.in.pt and <name>.<size>.out.pt
  view_dyn   Linear, then view(x.shape[0], -1, 4): aten.sym_size.int feeding a size list
  arith_dyn  reshape(n * 2, -1) + (n // 2 + 1): Python arithmetic on SymInts
  llama_dyn  a tiny Llama (transformers, small config, random weights) with a dynamic sequence
  linear_relu_dyn  the torch.fx tutorial's module (relu(linear(x)).clamp) on a 3-D input with a
             dynamic batch: what fuse-linear-relu rewrites
  bart_dyn   a tiny Bart (gelu) with dynamic batch and sequence; its inputs are (input_ids,
             attention_mask), each .in.pt holds both
  view_dyn8.pt2  view_dyn exported with at most 8 rows (ranges are per program)
Run: .venv/bin/python make_dynamic_programs.py OUTDIR
"""
import json
import os
import sys

import torch


class ViewDyn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x).view(x.shape[0], -1, 4) * 2


class ArithDyn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        n = x.shape[0]
        return self.fc(x).reshape(n * 2, -1) + (n // 2 + 1)


class TinyLlama(torch.nn.Module):
    def __init__(self):
        super().__init__()
        import transformers

        config = transformers.LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                          num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
        self.model = transformers.LlamaForCausalLM(config).eval()

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


class LinearRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 5)

    def forward(self, x):
        return torch.relu(self.linear(x)).clamp(min=0.0, max=1.0)


class TinyBart(torch.nn.Module):
    def __init__(self):
        super().__init__()
        import transformers

        config = transformers.BartConfig(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                         decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=64,
                                         max_position_embeddings=64, activation_function="gelu")
        self.model = transformers.BartModel(config).eval()

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state


def save_bart(out):
    """bart_dyn: batch and sequence both dynamic, run at (2, 8) and (5, 13)."""
    def make(batch, seq):
        return [torch.randint(0, 64, (batch, seq)), torch.ones(batch, seq, dtype=torch.long)]

    batch, seq = torch.export.Dim("batch", min=1, max=8), torch.export.Dim("seq", min=3, max=32)
    dims = {0: batch, 1: seq}
    ep = torch.export.export(TinyBart().eval(), tuple(make(2, 8)), dynamic_shapes=(dims, dims), strict=False)
    torch.export.save(ep, os.path.join(out, "bart_dyn.pt2"))
    for size, (b, s) in ((8, (2, 8)), (13, (5, 13))):
        x = make(b, s)
        torch.save(x, os.path.join(out, "bart_dyn.%d.in.pt" % size))
        torch.save(ep.module()(*x), os.path.join(out, "bart_dyn.%d.out.pt" % size))
    with open(os.path.join(out, "bart_dyn.ref.json"), "w") as f:
        json.dump({"sizes": [8, 13]}, f)


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    cases = (("view_dyn", ViewDyn, lambda n: torch.randn(n, 8), 0, (4, 13)),
             ("arith_dyn", ArithDyn, lambda n: torch.randn(n, 8), 0, (4, 13)),
             ("llama_dyn", TinyLlama, lambda n: torch.randint(0, 128, (1, n)), 1, (8, 13)),
             ("linear_relu_dyn", LinearRelu, lambda n: torch.randn(n, 3, 4), 0, (4, 13)))
    for name, cls, make, dim, sizes in cases:
        size = torch.export.Dim("size", min=2, max=32)
        ep = torch.export.export(cls().eval(), (make(sizes[0]),), dynamic_shapes=({dim: size},), strict=False)
        torch.export.save(ep, os.path.join(out, name + ".pt2"))
        ops = sum(1 for n in ep.graph.nodes if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload))
        for size in sizes:
            x = make(size)
            torch.save(x, os.path.join(out, "%s.%d.in.pt" % (name, size)))
            torch.save(ep.module()(x), os.path.join(out, "%s.%d.out.pt" % (name, size)))
        with open(os.path.join(out, name + ".ref.json"), "w") as f:
            json.dump({"ops": ops, "sizes": list(sizes)}, f)
    save_bart(out)
    # The same program allowed at most 8 rows: its symbol has the same name as view_dyn's, and a
    # range of its own.
    small = torch.export.Dim("size", min=2, max=8)
    ep = torch.export.export(ViewDyn().eval(), (torch.randn(4, 8),), dynamic_shapes=({0: small},), strict=False)
    torch.export.save(ep, os.path.join(out, "view_dyn8.pt2"))


if __name__ == "__main__":
    main(sys.argv[1])
