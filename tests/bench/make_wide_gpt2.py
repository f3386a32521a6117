"""A GPT-2-architecture program whose weights are large and its graph small (undecomposed,
random weights from a transformers config; nothing downloaded): what opening must not read.

  make_wide_gpt2.py PATH [BLOCKS] [WIDTH] [VOCAB]
      exports PATH (default 2 blocks of width 1024 over a vocabulary of 16,384: about 43 M
      parameters, 170 MB), unless it exists; beside it PATH.inputs.pt (the sample ids) and
      PATH.logits.pt (stock PyTorch's output on them, to check a run against)
The 1.4 GB program of bench_open is `make_gpt2_program.py make PATH` (24 blocks, vocabulary 50,257).
"""
import os
import sys
import warnings

warnings.filterwarnings("ignore")


def main(path, blocks="2", width="1024", vocab="16384"):
    if os.path.exists(path):
        return
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=int(blocks), n_embd=int(width), n_head=16, n_positions=256, vocab_size=int(vocab),
                     bos_token_id=0, eos_token_id=0, use_cache=False)

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gpt2 = GPT2LMHeadModel(cfg)

        def forward(self, ids):
            return self.gpt2(ids).logits

    model = Logits().eval()
    ids = torch.randint(0, cfg.vocab_size, (1, 16))
    with torch.no_grad():
        ep = torch.export.export(model, (ids,))
        logits = ep.module()(ids)
    torch.save(ids, path + ".inputs.pt")
    torch.save(logits, path + ".logits.pt")
    torch.export.save(ep, path + ".partial.pt2")  # torch warns about any other suffix
    os.replace(path + ".partial.pt2", path)


if __name__ == "__main__":
    main(*sys.argv[1:])
