"""transformers' RoBERTa from a small config, traced (roberta.pt) and exported (roberta.pt2), for
tst_pt2: its encoder's layers sit in a ModuleList that the traced call stacks never name.
Run: .venv/bin/python make_traced_roberta.py OUTDIR
"""
import os
import sys

import torch
from transformers import RobertaConfig, RobertaModel

OUT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "."


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    config = RobertaConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                           intermediate_size=64, max_position_embeddings=64)
    model = RobertaModel(config).eval()
    ids = torch.randint(3, 100, (1, 8))
    torch.jit.trace(model, (ids,), check_trace=False, strict=False).save(os.path.join(OUT, "roberta.pt"))
    torch.export.save(torch.export.export(model, (ids,), strict=False), os.path.join(OUT, "roberta.pt2"))


if __name__ == "__main__":
    main()
