"""A zoo of Hugging Face language models (transformers' small configs, random weights, nothing
downloaded), each exported with torch.export (strict=False) with a dynamic batch and sequence
length, as exported (<name>_dyn) and after run_decompositions() (<name>_dyn_decomp):
  llama, qwen2, mistral  causal LMs: input_ids and attention_mask by keyword, returning logits
  gpt2                   GPT2LMHeadModel with eager attention, the same inputs
  bert                   BertModel: input_ids, attention_mask by keyword; (last_hidden_state,
                         pooler_output)
  t5enc                  T5EncoderModel: input_ids, attention_mask by keyword
  whisperenc             Whisper's encoder: input_features (batch, mel bins, frames). The encoder
                         refuses any frame count but 2 * max_source_positions, so only the batch
                         is dynamic; the "sequence" size is that fixed frame count.
  llama_static           transformers' own recipe for decoder-only LMs with a static KV cache
                         (TorchExportableModuleForDecoderOnlyLM): one token at a time with its
                         cache position, the cache held in buffers the program mutates; batch
                         and cache length are fixed by the recipe, so its two "sizes" are two
                         decoding steps (cache positions) of batch 1.
Per program, in OUTDIR:
  <name>.pt2
  <name>.ref.json  {"ops": call_function nodes whose target is an operator overload (as torch.export
                   counts them), "sizes": [[batch, seq], ...], "inputs": flat input paths,
                   "outputs": flat output paths, "output" for a bare tensor}
  <name>.<i>.in.pt   the flat list of input tensors at sizes[i], in the program's flat input order
  <name>.<i>.out.pt  the flat list of ep.module()'s output tensors on them
Stock PyTorch loads the programs back once transformers' output classes are registered for
serialization: `import transformers.modeling_outputs` before torch.export.load.
Run: .venv/bin/python make_lm_zoo.py OUTDIR [NAME ...]   (NAME: a program name, e.g. qwen2_dyn)
"""
import inspect
import json
import os
import sys

import torch
import torch.utils._pytree as pytree
import transformers.modeling_outputs  # noqa: F401  output classes registered for torch.export.load

from make_structured_programs import key_name, path_of

VOCAB = 96
SIZES = ((2, 8), (3, 13))  # (batch, sequence) at which stock PyTorch is run; the first is exported
BATCH = torch.export.Dim("batch", min=1, max=16)
SEQ = torch.export.Dim("seq", min=2, max=48)


def causal_lm(kind):
    import transformers

    common = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=64, use_cache=False)
    config = {"llama": transformers.LlamaConfig, "qwen2": transformers.Qwen2Config,
              "mistral": transformers.MistralConfig}[kind](**common)
    return transformers.AutoModelForCausalLM.from_config(config).eval()


def gpt2():
    import transformers

    config = transformers.GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64, use_cache=False,
                                     attn_implementation="eager", bos_token_id=0, eos_token_id=0, pad_token_id=0)
    # Eager attention: with SDPA, run_decompositions() fails in torch 2.14 (the CPU flash-attention
    # decomposition's fake strides make GPT-2's view(-1, hidden) after it impossible). It also gives
    # the zoo one model whose attention is explicit matmul, softmax and a causal where.
    return transformers.GPT2LMHeadModel(config).eval()


def bert():
    import transformers

    config = transformers.BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=64, max_position_embeddings=64)
    return transformers.BertModel(config).eval()


def t5_encoder():
    import transformers

    config = transformers.T5Config(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                                   use_cache=False)
    return transformers.T5EncoderModel(config).eval()


WHISPER_MELS, WHISPER_POSITIONS = 16, 16


def whisper_encoder():
    import transformers

    config = transformers.WhisperConfig(vocab_size=VOCAB, d_model=32, encoder_layers=2, encoder_attention_heads=4,
                                        decoder_layers=2, decoder_attention_heads=4, encoder_ffn_dim=64,
                                        decoder_ffn_dim=64, num_mel_bins=WHISPER_MELS,
                                        max_source_positions=WHISPER_POSITIONS, max_target_positions=32,
                                        pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    return transformers.models.whisper.modeling_whisper.WhisperEncoder(config).eval()


def token_inputs(batch, seq, generator):
    ids = torch.randint(0, VOCAB, (batch, seq), generator=generator)
    mask = torch.ones(batch, seq, dtype=torch.long)
    mask[0, : seq // 4] = 0  # left padding on the first row, so the mask matters
    return (), {"input_ids": ids, "attention_mask": mask}


def bert_inputs(batch, seq, generator):
    _, kwargs = token_inputs(batch, seq, generator)
    return (kwargs["input_ids"],), {"attention_mask": kwargs["attention_mask"]}


def whisper_inputs(batch, _seq, generator):
    return (torch.randn(batch, WHISPER_MELS, 2 * WHISPER_POSITIONS, generator=generator),), {}


TOKEN_SHAPES = {"input_ids": {0: BATCH, 1: SEQ}, "attention_mask": {0: BATCH, 1: SEQ}}
# name: (model factory, inputs at (batch, seq), dynamic_shapes, sizes)
DYNAMIC = {
    "llama": (lambda: causal_lm("llama"), token_inputs, TOKEN_SHAPES, SIZES),
    "qwen2": (lambda: causal_lm("qwen2"), token_inputs, TOKEN_SHAPES, SIZES),
    "mistral": (lambda: causal_lm("mistral"), token_inputs, TOKEN_SHAPES, SIZES),
    "gpt2": (gpt2, token_inputs, TOKEN_SHAPES, SIZES),
    "bert": (bert, bert_inputs, {"input_ids": {0: BATCH, 1: SEQ}, "attention_mask": {0: BATCH, 1: SEQ}}, SIZES),
    "t5enc": (t5_encoder, token_inputs, TOKEN_SHAPES, SIZES),
    # Whisper's encoder refuses any frame count but 2 * max_source_positions: the batch alone is dynamic.
    "whisperenc": (whisper_encoder, whisper_inputs, {"input_features": {0: BATCH}},
                   tuple((b, 2 * WHISPER_POSITIONS) for b, _ in SIZES)),
}


def ordered_kwargs(model, kwargs):
    """kwargs in forward's parameter order: the order of the program's in_spec."""
    order = list(inspect.signature(model.forward).parameters)
    return dict(sorted(kwargs.items(), key=lambda kv: order.index(kv[0])))


def input_paths(ep, args, kwargs):
    arg_names = ep.module_call_graph[0].signature.forward_arg_names
    paths = []
    for keys, _ in pytree.tree_flatten_with_path((args, kwargs))[0]:
        first, rest = keys[0], keys[1:]
        if key_name(first) == "0":  # positional: named by forward's argument names
            paths.append(".".join([arg_names[int(key_name(rest[0]))]] + [key_name(k) for k in rest[1:]]))
        else:
            paths.append(path_of(rest))
    return paths


def op_count(ep):
    return sum(1 for n in ep.graph.nodes if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload))


def save_program(out, name, ep, runs):
    """runs: [((batch, seq), args, kwargs)]. The references are ep.module()'s outputs for the program
    as saved, loaded afresh per run: a program that writes its state in place (the static cache)
    starts every run from the saved state, as Graft runs it."""
    tmp = os.path.join(out, ".tmp." + name + ".pt2")
    torch.export.save(ep, tmp)
    for i, (_, args, kwargs) in enumerate(runs):
        flat, spec = pytree.tree_flatten((args, kwargs))
        assert spec == ep.call_spec.in_spec, "%s: inputs do not flatten as the program's in_spec" % name
        with torch.no_grad():
            leaves = pytree.tree_flatten_with_path(torch.export.load(tmp).module()(*args, **kwargs))[0]
        torch.save(flat, os.path.join(out, "%s.%d.in.pt" % (name, i)))
        torch.save([t for _, t in leaves], os.path.join(out, "%s.%d.out.pt" % (name, i)))
    _, args, kwargs = runs[0]
    ref = {"ops": op_count(ep), "sizes": [list(size) for size, _, _ in runs],
           "inputs": input_paths(ep, args, kwargs),
           "outputs": [path_of(k) or "output" for k, _ in leaves]}  # a bare tensor has no path: "output"
    with open(os.path.join(out, name + ".ref.json"), "w") as f:
        json.dump(ref, f)
    os.replace(tmp, os.path.join(out, name + ".pt2"))  # last: its presence means the program is complete


def make_dynamic(out, base, wanted):
    factory, make_inputs, shapes, sizes = DYNAMIC[base]
    torch.manual_seed(0)
    model = factory()
    generator = torch.Generator().manual_seed(1)
    runs = []
    for batch, seq in sizes:
        args, kwargs = make_inputs(batch, seq, generator)
        runs.append(((batch, seq), args, ordered_kwargs(model, kwargs)))
    _, args, kwargs = runs[0]
    dynamic_shapes = {**{name: shapes[name] for name in list(inspect.signature(model.forward).parameters)[: len(args)]},
                      **{name: shapes[name] for name in kwargs}}
    ep = torch.export.export(model, args, kwargs, dynamic_shapes=dynamic_shapes, strict=False)
    if base + "_dyn" in wanted:
        save_program(out, base + "_dyn", ep, runs)
    if base + "_dyn_decomp" in wanted:
        save_program(out, base + "_dyn_decomp", ep.run_decompositions(), runs)


def make_static_cache(out, name):
    import transformers
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    model = transformers.LlamaForCausalLM(config).eval()
    model.generation_config.use_cache = True
    model.generation_config.cache_implementation = "static"
    exportable = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=16)
    ids = torch.tensor([[5]])
    ep = exportable.export(input_ids=ids, cache_position=torch.tensor([0]), strict=False)
    generator = torch.Generator().manual_seed(1)
    runs = [((1, position), (), {"input_ids": torch.randint(0, VOCAB, (1, 1), generator=generator),
                                 "cache_position": torch.tensor([position])}) for position in (0, 5)]
    save_program(out, name, ep, runs)


def main(out, names):
    os.makedirs(out, exist_ok=True)
    every = [base + suffix for base in DYNAMIC for suffix in ("_dyn", "_dyn_decomp")] + ["llama_static"]
    wanted = set(names or every)
    unknown = wanted - set(every)
    if unknown:
        sys.exit("unknown programs: %s (known: %s)" % (", ".join(sorted(unknown)), ", ".join(every)))
    wanted = {n for n in wanted if not os.path.exists(os.path.join(out, n + ".pt2"))}
    for base in DYNAMIC:
        if wanted & {base + "_dyn", base + "_dyn_decomp"}:
            make_dynamic(out, base, wanted)
    if "llama_static" in wanted:
        make_static_cache(out, "llama_static")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
