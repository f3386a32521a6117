"""Programs for tst_devices: made for another device, holding higher-order ops, and a Hugging Face
OPT for a bfloat16 precision run. Each is written with stock PyTorch; the references are stock
PyTorch's outputs.
  device_cuda      a torch.export program whose graph holds device constants (arange, zeros,
                   full, to(device), _assert_tensor_metadata) with a dynamic dimension, exported
                   on the CPU and then edited as a GPU export reads: every device field in its
                   JSON set to cuda (as_device {"type": "cuda", "index": 0}, arange's as
                   move_to_device_pass writes it, the string "cuda"), tensor metadata and weight
                   metadata on cuda, the sample inputs saved from cuda:0. There is no GPU here: the
                   references are the CPU original's ep.module() outputs (torch.export.load).
  device_cuda_ts   a traced TorchScript archive with the same device constants, its code edited
                   to torch.device("cuda:0"); references from the CPU original.
  hop_regions      a module whose forward holds torch.no_grad() and torch.autocast("cpu",
                   bfloat16) regions, exported in grad mode with a dynamic batch: its graph holds
                   wrap_with_set_grad_enabled and wrap_with_autocast.
  invoke_subgraph  a function marked torch.compiler.nested_compile_region, called by two
                   submodules, exported strictly (non-strict export inlines it) with a dynamic
                   batch: its graph holds two invoke_subgraph calls of one body.
  opt_dyn          transformers' OPTForCausalLM (small config, random weights), as make_lm_zoo.py
                   exports causal LMs; opt_dyn_decomp after run_decompositions().
  gpt_neox_dyn, falcon_dyn, gemma_dyn, albert_dyn, distilbert_dyn_decomp
                   the other Hugging Face programs whose float16/bfloat16 runs failed on dtype
                   asserts and bmm dtype checks, exported the same way.
Per program, in OUTDIR (as make_lm_zoo.py): <name>.pt2 (or .pt), <name>.ref.json {"ops": op
overloads of the graph and of the bodies of its higher-order ops, as torch.export lists them,
"sizes"}, <name>.<i>.in.pt and <name>.<i>.out.pt (flat input and output tensors at sizes[i]).
Run: .venv/bin/python make_device_programs.py OUTDIR
"""
import io
import json
import os
import re
import sys
import zipfile

import torch
import torch.utils._pytree as pytree

DYN = torch.export.Dim("n", min=2, max=64)


class DeviceConstants(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device)
        z = torch.zeros(x.shape[0], 8, device=x.device)
        f = torch.full((1, 1, 8), 0.5, device=x.device)
        y = self.lin(x) + pos.to(x.dtype)[None, :, None] + z[:, None, :] + f
        return y.to("cpu") * 2


class Regions(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 16)
        self.b = torch.nn.Linear(16, 16)
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, x):
        h = self.a(x).relu()
        with torch.no_grad():
            g = torch.sin(h) * 2 + torch.arange(h.shape[-1], device=h.device)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = self.b(g + h)
            s = self.norm(y).softmax(-1) @ y.transpose(0, 1)
        return s.float() + h.sum()


@torch.compiler.nested_compile_region
def gelu_block(x, w, b):
    return torch.nn.functional.gelu(x @ w + b) * 0.5 + x


class Mixer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8, 8) * 0.3)
        self.b = torch.nn.Parameter(torch.randn(8))

    def forward(self, x):
        return gelu_block(x, self.w, self.b)


class Subgraphs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(8, 8)
        self.m1 = Mixer()
        self.m2 = Mixer()

    def forward(self, x):
        return self.m2(self.m1(self.inp(x))).relu()


def region_ops(gm):
    """Per higher-order call, in graph order: its target's name, the op overloads its body holds
    (bodies inside it included) and its module path."""
    out = []
    for n in gm.graph.nodes:
        if n.op == "call_function" and isinstance(n.target, torch._ops.HigherOrderOperator):
            body = next(a for a in n.args if isinstance(a, torch.fx.Node) and a.op == "get_attr")
            stack = n.meta.get("nn_module_stack") or {}
            path = list(stack.values())[-1][0] if stack else ""
            out.append({"target": n.target.__name__, "ops": op_count(getattr(gm, body.target)), "module": path})
    return out


def flat_outputs(out):
    return [t for _, t in pytree.tree_flatten_with_path(out)[0]]


def op_count(gm):
    """Op overloads in the graph and, recursively, in the bodies its higher-order ops call."""
    count = 0
    for n in gm.graph.nodes:
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload):
            count += 1
        if n.op == "call_function" and isinstance(n.target, torch._ops.HigherOrderOperator):
            for a in n.args:
                if isinstance(a, torch.fx.Node) and a.op == "get_attr":
                    count += op_count(getattr(gm, a.target))
    return count


def save_references(out, name, run, inputs, ops, regions=None):
    for i, args in enumerate(inputs):
        with torch.no_grad():
            outputs = flat_outputs(run(*args))
        torch.save(list(args), os.path.join(out, "%s.%d.in.pt" % (name, i)))
        torch.save(outputs, os.path.join(out, "%s.%d.out.pt" % (name, i)))
    with open(os.path.join(out, name + ".ref.json"), "w") as f:
        json.dump({"ops": ops, "sizes": [list(a[0].shape) for a in inputs], "regions": regions or []}, f)


def to_cuda_json(model):
    """model.json as a program exported on a GPU reads."""
    cuda = {"type": "cuda", "index": 0}

    def walk(v, parent_key=None):
        if isinstance(v, dict):
            if v.get("target") == "torch.ops.aten.arange.default":
                for a in v["inputs"]:
                    if "as_device" in a["arg"]:
                        a["arg"] = {"as_string": "cuda"}  # torch.export.passes.move_to_device_pass's spelling
            for k, x in v.items():
                if k == "as_device" or (k == "device" and isinstance(x, dict) and "type" in x):
                    v[k] = dict(cuda)
                else:
                    walk(x, k)
        elif isinstance(v, list):
            for x in v:
                walk(x, parent_key)

    walk(model)
    return model


def cuda_sample_inputs(data):
    """A torch.save'd value rewritten as saved from cuda:0 (its storages' location tag)."""
    value = torch.load(io.BytesIO(data), weights_only=False)
    original = torch.serialization.location_tag
    torch.serialization.location_tag = lambda storage: "cuda:0"
    try:
        buffer = io.BytesIO()
        torch.save(value, buffer)
    finally:
        torch.serialization.location_tag = original
    return buffer.getvalue()


def rewrite_zip(src, dst, edit):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = edit(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info, data)


def make_device_cuda(out):
    torch.manual_seed(0)
    model = DeviceConstants().eval()
    x = torch.randn(2, 5, 8)
    ep = torch.export.export(model, (x,), dynamic_shapes=({1: DYN},))
    cpu_path = os.path.join(out, "device_cpu.pt2")
    torch.export.save(ep, cpu_path)
    stock = torch.export.load(cpu_path).module()
    g = torch.Generator().manual_seed(1)
    save_references(out, "device_cuda", stock, [(torch.randn(2, 5, 8, generator=g),), (torch.randn(2, 11, 8, generator=g),)],
                    op_count(ep.graph_module))

    def edit(name, data):
        if name.endswith(".json") and "/models/" in name:
            return json.dumps(to_cuda_json(json.loads(data))).encode()
        if name.endswith("_config.json"):
            return json.dumps(to_cuda_json(json.loads(data))).encode()
        if "/data/sample_inputs/" in name:
            return cuda_sample_inputs(data)
        return data

    tmp = os.path.join(out, ".tmp.device_cuda.pt2")
    rewrite_zip(cpu_path, tmp, edit)
    text = zipfile.ZipFile(tmp).read("device_cpu/models/model.json").decode()
    assert '"type": "cpu"' not in text and '"as_string": "cuda"' in text, "the program still names the CPU"
    os.replace(tmp, os.path.join(out, "device_cuda.pt2"))


def make_device_cuda_ts(out):
    torch.manual_seed(0)
    model = DeviceConstants().eval()
    traced = torch.jit.trace(model, torch.randn(2, 5, 8))
    cpu_path = os.path.join(out, "device_cpu_ts.pt")
    traced.save(cpu_path)
    g = torch.Generator().manual_seed(1)
    save_references(out, "device_cuda_ts", torch.jit.load(cpu_path),
                    [(torch.randn(2, 5, 8, generator=g),), (torch.randn(2, 11, 8, generator=g),)], 0)

    def edit(name, data):
        if name.endswith(".debug_pkl"):
            return None  # source ranges into the code as written: optional, and stale once it is edited
        if "/code/" in name and name.endswith(".py"):
            text, n = re.subn(r'torch\.device\("cpu"\)', 'torch.device("cuda:0")', data.decode())
            edited[0] += n
            return text.encode()
        return data

    tmp = os.path.join(out, ".tmp.device_cuda_ts.pt")
    edited = [0]
    rewrite_zip(cpu_path, tmp, edit)
    assert edited[0] >= 2, "the traced code names no CPU device"
    os.replace(tmp, os.path.join(out, "device_cuda_ts.pt"))


def make_hop_regions(out):
    torch.manual_seed(0)
    model = Regions().eval()
    x = torch.randn(3, 8)
    ep = torch.export.export(model, (x,), dynamic_shapes=({0: DYN},))
    targets = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    assert any("wrap_with_set_grad_enabled" in t for t in targets), targets
    assert any("wrap_with_autocast" in t for t in targets), targets
    tmp = os.path.join(out, ".tmp.hop_regions.pt2")
    torch.export.save(ep, tmp)
    stock = torch.export.load(tmp).module()
    g = torch.Generator().manual_seed(1)
    save_references(out, "hop_regions", stock, [(torch.randn(3, 8, generator=g),), (torch.randn(7, 8, generator=g),)],
                    op_count(ep.graph_module), region_ops(ep.graph_module))
    os.replace(tmp, os.path.join(out, "hop_regions.pt2"))


def make_invoke_subgraph(out):
    torch.manual_seed(0)
    model = Subgraphs().eval()
    x = torch.randn(3, 8)
    ep = torch.export.export(model, (x,), dynamic_shapes=({0: DYN},), strict=True)
    targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
    assert sum("invoke_subgraph" in t for t in targets) == 2, targets
    tmp = os.path.join(out, ".tmp.invoke_subgraph.pt2")
    torch.export.save(ep, tmp)
    stock = torch.export.load(tmp).module()
    g = torch.Generator().manual_seed(1)
    save_references(out, "invoke_subgraph", stock, [(torch.randn(3, 8, generator=g),), (torch.randn(7, 8, generator=g),)],
                    op_count(ep.graph_module), region_ops(ep.graph_module))
    os.replace(tmp, os.path.join(out, "invoke_subgraph.pt2"))


def make_opt(out):
    import transformers
    import transformers.modeling_outputs  # noqa: F401  output classes registered for torch.export.load

    torch.manual_seed(0)
    config = transformers.OPTConfig(vocab_size=96, hidden_size=32, ffn_dim=64, num_hidden_layers=2, num_attention_heads=4,
                                    max_position_embeddings=64, word_embed_proj_dim=32, use_cache=False,
                                    pad_token_id=1, bos_token_id=2, eos_token_id=2)
    model = transformers.OPTForCausalLM(config).eval()
    batch, seq = torch.export.Dim("batch", min=1, max=16), torch.export.Dim("seq", min=2, max=48)
    ids = torch.randint(0, 96, (2, 8), generator=torch.Generator().manual_seed(1))
    mask = torch.ones(2, 8, dtype=torch.long)
    ep = torch.export.export(model, (), {"input_ids": ids, "attention_mask": mask},
                             dynamic_shapes={"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}},
                             strict=False)
    for name, program in (("opt_dyn_decomp", ep.run_decompositions()), ("opt_dyn", ep)):
        tmp = os.path.join(out, ".tmp.%s.pt2" % name)
        torch.export.save(program, tmp)
        os.replace(tmp, os.path.join(out, name + ".pt2"))


def hf_models():
    """The Hugging Face programs whose lower-precision runs failed on dtype asserts and bmm dtype
    checks (as stock .half() does): name -> (model factory, run_decompositions or not)."""
    import transformers as T

    v = 96
    return {
        "gpt_neox_dyn": (lambda: T.GPTNeoXForCausalLM(T.GPTNeoXConfig(
            vocab_size=v, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
            max_position_embeddings=64, use_cache=False)), False),
        "falcon_dyn": (lambda: T.FalconForCausalLM(T.FalconConfig(
            vocab_size=v, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, use_cache=False)), False),
        "gemma_dyn": (lambda: T.GemmaForCausalLM(T.GemmaConfig(
            vocab_size=v, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, head_dim=8, max_position_embeddings=64, use_cache=False)), False),
        "albert_dyn": (lambda: T.AlbertModel(T.AlbertConfig(
            vocab_size=v, embedding_size=16, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, max_position_embeddings=64)), False),
        "distilbert_dyn_decomp": (lambda: T.DistilBertModel(T.DistilBertConfig(
            vocab_size=v, dim=32, hidden_dim=64, n_layers=2, n_heads=4, max_position_embeddings=64)), True),
    }


def make_hf(out, name):
    import transformers.modeling_outputs  # noqa: F401  output classes registered for torch.export.load

    factory, decompose = hf_models()[name]
    torch.manual_seed(0)
    model = factory().eval()
    batch, seq = torch.export.Dim("batch", min=1, max=16), torch.export.Dim("seq", min=2, max=48)
    ids = torch.randint(0, 96, (2, 8), generator=torch.Generator().manual_seed(1))
    mask = torch.ones(2, 8, dtype=torch.long)
    ep = torch.export.export(model, (), {"input_ids": ids, "attention_mask": mask},
                             dynamic_shapes={"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}},
                             strict=False)
    if decompose:
        ep = ep.run_decompositions()
    tmp = os.path.join(out, ".tmp.%s.pt2" % name)
    torch.export.save(ep, tmp)
    os.replace(tmp, os.path.join(out, name + ".pt2"))


def main(out):
    os.makedirs(out, exist_ok=True)
    for name, make in (("device_cuda.pt2", make_device_cuda), ("device_cuda_ts.pt", make_device_cuda_ts),
                       ("hop_regions.pt2", make_hop_regions), ("invoke_subgraph.pt2", make_invoke_subgraph),
                       ("opt_dyn.pt2", make_opt)):
        if not os.path.exists(os.path.join(out, name)):
            make(out)
            print("devices: %s" % name)
    for name in hf_models():
        if not os.path.exists(os.path.join(out, name + ".pt2")):
            make_hf(out, name)
            print("devices: %s.pt2" % name)


if __name__ == "__main__":
    main(sys.argv[1])
