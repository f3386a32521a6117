"""torch.export programs for tst_profile's memory test against stock PyTorch
(tests/python/torch_memory.py runs them as ep.module()).
  bart  transformers' BartModel, small config, random weights (nothing downloaded): d_model 32,
        2 encoder and 2 decoder layers, 4 heads, ffn 64, vocab 64, 64 positions; exported with
        torch.export (strict=False) at input_ids and attention_mask 1x8, by keyword. Its graph
        holds what a node-by-node run must free as fx's code does: a view no node reads (select
        of the scaled embeddings), the aliases in-place ops return (copy_, fill_), an aten.to that
        returns its input.
Per program, in OUTDIR: <name>.pt2 and <name>.in<i>.pt, the i-th user input (torch.save'd tensor)
in the program's input order.
Run: .venv/bin/python make_memory_programs.py OUTDIR
"""
import os
import sys

import torch
import transformers


def bart():
    config = transformers.BartConfig(vocab_size=64, d_model=32, encoder_layers=2, decoder_layers=2,
                                     encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                                     decoder_ffn_dim=64, max_position_embeddings=64, use_cache=False)
    model = transformers.BartModel(config).eval()
    inputs = {"input_ids": torch.randint(3, 64, (1, 8)), "attention_mask": torch.ones(1, 8, dtype=torch.long)}
    return model, inputs


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name, make in (("bart", bart),):
        model, inputs = make()
        with torch.no_grad():
            program = torch.export.export(model, (), inputs, strict=False)
        torch.export.save(program, os.path.join(out, name + ".pt2"))
        names = [s.arg.name for s in program.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
        for i, n in enumerate(names):
            torch.save(inputs[n], os.path.join(out, f"{name}.in{i}.pt"))


if __name__ == "__main__":
    main()
