"""bench_open's model: a GPT-2-architecture program of about 350 M parameters (24 layers, width
1024, random weights), exported once; then the time stock PyTorch takes to load it.

  make_gpt2_program.py make PATH   export and save PATH unless it exists
  make_gpt2_program.py load PATH   print {"load_s": …, "weight_bytes": …} for torch.export.load(PATH)
  make_gpt2_program.py blocks PATH N [WIDTH]
      a decomposed program (ep.run_decompositions()) of N blocks of width WIDTH (default 64):
      bench_canvas's large programs, 48 blocks ≈ 3,000 ops, 100 ≈ 6,800, 300 ≈ 20,000
"""
import json
import os
import sys
import time
import warnings

warnings.filterwarnings("ignore")


def make(path):
    if os.path.exists(path):
        return
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=24, n_embd=1024, n_head=16, n_positions=1024, vocab_size=50257, use_cache=False)

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gpt2 = GPT2LMHeadModel(cfg)

        def forward(self, ids):
            return self.gpt2(ids).logits

    model = Logits().eval()
    with torch.no_grad():
        ep = torch.export.export(model, (torch.randint(0, cfg.vocab_size, (1, 16)),))
    torch.export.save(ep, path + ".partial")
    os.replace(path + ".partial", path)


def blocks(path, n, width="64"):
    if os.path.exists(path):
        return
    import torch
    from transformers import GPT2Config, GPT2Model
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=int(n), n_embd=int(width), n_head=4, n_positions=128, vocab_size=1000,
                     use_cache=False)

    class Hidden(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gpt2 = GPT2Model(cfg)

        def forward(self, ids):
            return self.gpt2(ids).last_hidden_state

    model = Hidden().eval()
    with torch.no_grad():
        ep = torch.export.export(model, (torch.randint(0, cfg.vocab_size, (1, 16)),)).run_decompositions()
    torch.export.save(ep, path + ".partial.pt2")  # torch warns about any other suffix
    os.replace(path + ".partial.pt2", path)


def load(path):
    import torch
    start = time.perf_counter()
    ep = torch.export.load(path)
    seconds = time.perf_counter() - start
    weights = sum(t.numel() * t.element_size() for t in ep.state_dict.values())
    weights += sum(t.numel() * t.element_size() for t in ep.constants.values() if isinstance(t, torch.Tensor))
    print(json.dumps({"load_s": seconds, "weight_bytes": weights}))


if __name__ == "__main__":
    {"make": make, "load": load, "blocks": blocks}[sys.argv[1]](*sys.argv[2:])
