"""Models for tests/gpu/run.sh, made with the GPU machine's own torch (random weights, seed 0,
nothing downloaded). `cnn` (fast, first): torchvision resnet50 as TorchScript (traced) and as a
program with a dynamic batch, vit_b_16 as a program. `llm` (slow, in the background): a transformers
Llama of about 1B parameters exported under torch.no_grad() with a dynamic sequence; where
transformers cannot be imported, a Llama-shaped decoder written in plain torch instead (said in
made-llm.json and in the table).

  python3 make_models.py cnn|llm DIR
Inputs for PyTorch's side: DIR/llama.ids.pt (the program's sample input) and llama.ids40.pt
(another sequence length, for the dynamic dimension)."""
import json
import os
import sys
import time
import warnings

import torch
from torch import nn

warnings.filterwarnings("ignore")


def cnn(d):
    import torchvision
    r50 = torchvision.models.resnet50().eval()
    with torch.no_grad():
        torch.jit.save(torch.jit.trace(r50, torch.randn(1, 3, 224, 224), check_trace=False), f"{d}/resnet50.pt")
        batch = torch.export.Dim("batch", min=1, max=64)
        ep = torch.export.export(r50, (torch.randn(2, 3, 224, 224),), dynamic_shapes=({0: batch},))
        torch.export.save(ep, f"{d}/resnet50.pt2")
        vit = torchvision.models.vit_b_16().eval()
        torch.export.save(torch.export.export(vit, (torch.randn(1, 3, 224, 224),)), f"{d}/vit_b_16.pt2")
    return {"torchvision": torchvision.__version__}


class RMSNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6))


class Block(nn.Module):
    """A Llama decoder layer in plain torch: RMSNorm, grouped-query attention with rotary
    positions, SwiGLU MLP."""

    def __init__(self, h, heads, kv, inter):
        super().__init__()
        self.heads, self.kv, self.hd = heads, kv, h // heads
        self.input_layernorm, self.post_attention_layernorm = RMSNorm(h), RMSNorm(h)
        self.q_proj = nn.Linear(h, h, bias=False)
        self.k_proj = nn.Linear(h, kv * self.hd, bias=False)
        self.v_proj = nn.Linear(h, kv * self.hd, bias=False)
        self.o_proj = nn.Linear(h, h, bias=False)
        self.gate_proj = nn.Linear(h, inter, bias=False)
        self.up_proj = nn.Linear(h, inter, bias=False)
        self.down_proj = nn.Linear(inter, h, bias=False)

    def rotate(self, x, cos, sin):
        a, b = x[..., : self.hd // 2], x[..., self.hd // 2:]
        return x * cos + torch.cat((-b, a), dim=-1) * sin

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        y = self.input_layernorm(x)
        q = self.q_proj(y).view(b, s, self.heads, self.hd).transpose(1, 2)
        k = self.k_proj(y).view(b, s, self.kv, self.hd).transpose(1, 2)
        v = self.v_proj(y).view(b, s, self.kv, self.hd).transpose(1, 2)
        q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
        k = k.repeat_interleave(self.heads // self.kv, dim=1)
        v = v.repeat_interleave(self.heads // self.kv, dim=1)
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o_proj(a.transpose(1, 2).reshape(b, s, -1))
        y = self.post_attention_layernorm(x)
        return x + self.down_proj(torch.nn.functional.silu(self.gate_proj(y)) * self.up_proj(y))


class PlainLlama(nn.Module):
    def __init__(self, vocab, h, layers, heads, kv, inter):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, h)
        self.layers = nn.ModuleList(Block(h, heads, kv, inter) for _ in range(layers))
        self.norm = RMSNorm(h)
        self.lm_head = nn.Linear(h, vocab, bias=False)
        self.hd = h // heads

    def forward(self, ids):
        x = self.embed_tokens(ids)
        pos = torch.arange(ids.shape[1], device=ids.device, dtype=torch.float32)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2, device=ids.device, dtype=torch.float32) / self.hd))
        f = torch.outer(pos, inv)
        emb = torch.cat((f, f), dim=-1)
        cos, sin = emb.cos()[None, None], emb.sin()[None, None]
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.lm_head(self.norm(x))


class Logits(nn.Module):
    """The Hugging Face model returning its logits only (no output class to register with pytree)."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids):
        return self.lm(input_ids=input_ids).logits


def llm(d):
    # About 1B parameters: hidden 2048, 18 layers, grouped-query attention (16 heads, 8 kv heads).
    shape = dict(vocab=32000, h=2048, layers=18, heads=16, kv=8, inter=5632)
    if os.environ.get("GRAFT_GPU_SMALL_LLM"):  # a quick check of this script: the same recipe, tiny
        shape = dict(vocab=1000, h=256, layers=2, heads=8, kv=4, inter=688)
    info = {}
    with torch.device("cpu"):
        try:
            if os.environ.get("GRAFT_GPU_PLAIN_LLM"):
                raise ImportError("GRAFT_GPU_PLAIN_LLM is set")
            from transformers import LlamaConfig, LlamaForCausalLM
            import transformers
            cfg = LlamaConfig(vocab_size=shape["vocab"], hidden_size=shape["h"], intermediate_size=shape["inter"],
                              num_hidden_layers=shape["layers"], num_attention_heads=shape["heads"],
                              num_key_value_heads=shape["kv"], max_position_embeddings=512, use_cache=False)
            model = Logits(LlamaForCausalLM(cfg).eval()).eval()
            info["llama"] = f"transformers {transformers.__version__} LlamaForCausalLM"
        except Exception as e:  # transformers missing or broken: the same shape in plain torch
            model = PlainLlama(**shape).eval()
            info["llama"] = f"plain-torch Llama decoder (transformers not importable: {type(e).__name__}: {e})"[:300]
    info["llama_params"] = sum(p.numel() for p in model.parameters())
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, shape["vocab"], (2, 16), generator=g)
    torch.save(ids, f"{d}/llama.ids.pt")
    torch.save(torch.randint(0, shape["vocab"], (2, 40), generator=g), f"{d}/llama.ids40.pt")
    with torch.no_grad():
        try:
            seq = torch.export.Dim("seq", min=2, max=256)
            ep = torch.export.export(model, (ids,), dynamic_shapes=({1: seq},), strict=False)
            info["seq"] = "Dim seq in [2, 256]"
        except Exception as e:  # a named Dim the model's guards refuse: let export choose
            ep = torch.export.export(model, (ids,), dynamic_shapes=({1: torch.export.Dim.AUTO},), strict=False)
            info["seq"] = f"Dim.AUTO ({type(e).__name__} with a named Dim)"
    torch.export.save(ep, f"{d}/llama.pt2")
    return info


def main():
    what, d = sys.argv[1], sys.argv[2]
    os.makedirs(d, exist_ok=True)
    torch.manual_seed(0)
    t0 = time.time()
    info = {"torch": torch.__version__, "cuda": torch.cuda.is_available()}
    try:
        info.update(cnn(d) if what == "cnn" else llm(d))
    except Exception as e:
        info["error"] = f"{type(e).__name__}: {e}"[:400]
    info["seconds"] = round(time.time() - t0, 1)
    with open(f"{d}/made-{what}.json", "w") as f:
        json.dump(info, f)
    print(json.dumps(info), flush=True)


if __name__ == "__main__":
    main()
