"""torch.export programs that call operators Graft's libtorch does not have, for tst_pt2:
  custom_op.pt2     a Linear, then graftdemo::scale_add (a torch.library custom op made here), then relu
  mixtral_moe.pt2   transformers' Mixtral from a small config: its experts call
                    torch.ops.transformers.grouped_mm_fallback
Run: .venv/bin/python make_custom_op_programs.py OUTDIR
"""
import os
import sys

import torch
from transformers import MixtralConfig, MixtralForCausalLM

OUT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "."


@torch.library.custom_op("graftdemo::scale_add", mutates_args=())
def scale_add(x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    return x * alpha + y


@scale_add.register_fake
def _(x, y, alpha):
    return torch.empty_like(x)


class ScaleAdd(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(torch.ops.graftdemo.scale_add(self.fc(x), x, 0.5))


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    ep = torch.export.export(ScaleAdd().eval(), (torch.randn(2, 8),))
    torch.export.save(ep, os.path.join(OUT, "custom_op.pt2"))
    config = MixtralConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2,
                           max_position_embeddings=64)
    model = MixtralForCausalLM(config).eval()
    ep = torch.export.export(model, (torch.randint(0, 128, (1, 8)),), kwargs={"use_cache": False}, strict=False)
    targets = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    if not any("grouped_mm_fallback" in t for t in targets):
        sys.exit("this transformers' Mixtral no longer calls grouped_mm_fallback: pick another custom op")
    torch.export.save(ep, os.path.join(OUT, "mixtral_moe.pt2"))


if __name__ == "__main__":
    main()
