"""Graft's child process, module replacement: builds the user's NewModule for each instance of the
old class and writes its forward, with the old instance's parameters as arguments, as TorchScript
IR and as a torch.export program. Not an API; see _rule_compiler.py."""
import inspect
import os
import warnings


class _Skip(Exception):
    pass


# Attributes of common torch.nn classes, read back from their parameters.
def _attributes(short, params):
    w = params.get("weight")
    attrs = {}
    if short == "Linear" and w is not None and w.dim() == 2:
        attrs.update(in_features=w.shape[1], out_features=w.shape[0])
    elif short in ("Conv1d", "Conv2d", "Conv3d") and w is not None:
        attrs.update(in_channels=w.shape[1], out_channels=w.shape[0], kernel_size=tuple(w.shape[2:]))
    elif short == "Embedding" and w is not None:
        attrs.update(num_embeddings=w.shape[0], embedding_dim=w.shape[1])
    elif short == "LayerNorm" and w is not None:
        attrs.update(normalized_shape=tuple(w.shape))
    elif short.startswith("BatchNorm"):
        ref = params.get("running_mean", w)
        if ref is not None:
            attrs.update(num_features=ref.shape[0])
    return attrs


def _stand_in(old_class, params):
    """The old instance as far as Graft knows it: its parameters by name and the attributes they
    imply, on an nn.Module named after the old class."""
    import torch

    short = old_class.rsplit(".", 1)[-1]
    old = type(short, (torch.nn.Module,), {})()
    for name, t in params.items():
        owner = old
        parts = name.split(".")
        for p in parts[:-1]:
            if not hasattr(owner, p):
                owner.add_module(p, torch.nn.Module())
            owner = getattr(owner, p)
        owner.register_parameter(parts[-1], torch.nn.Parameter(t, requires_grad=False))
    if short in ("Linear", "Conv1d", "Conv2d", "Conv3d") and "bias" not in params:
        old.bias = None
    for k, v in _attributes(short, params).items():
        setattr(old, k, v)
    return old


def _construct(cls, old, old_class, path):
    if hasattr(cls, "from_module"):
        return cls.from_module(old), "from_module"
    kwargs = {}
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if hasattr(old, p.name):
            v = getattr(old, p.name)
            if p.name == "bias" and (v is None or hasattr(v, "shape")):
                v = v is not None
            kwargs[p.name] = v
        elif p.default is inspect.Parameter.empty:
            raise _Skip(f"{cls.__name__}(...) needs `{p.name}`, which Graft cannot read from the old "
                        f"{old_class} at {path} (give {cls.__name__} a from_module(old) classmethod)")
    return cls(**kwargs), "constructor"


def _example(arg, params):
    import torch

    dtype = getattr(torch, arg.get("dtype") or "float32", torch.float32)
    if arg.get("shape"):
        shape = [int(s) if isinstance(s, int) or str(s).isdigit() else 4 for s in arg["shape"]]
        return torch.randn(shape).to(dtype)
    w = next(iter(params.values()), None)
    if w is None:
        raise _Skip("the input's shape is unknown (open a .pt2, or a model whose inputs Graft knows)")
    if w.dim() == 4:
        return torch.randn(2, w.shape[1], 8, 8)
    if w.dim() == 3:
        return torch.randn(2, w.shape[1], 16)
    if w.dim() == 2:
        return torch.randn(2, w.shape[1])
    return torch.randn(2, w.shape[0])


def compile_module(path, outdir, request, load, RuleFileError, line_of, short, def_line, export):
    import torch

    module = load(path)
    cls = getattr(module, request["class"], None)
    if cls is None:
        raise RuleFileError(f"{os.path.basename(path)} defines no `{request['class']}`", 1)
    if not (inspect.isclass(cls) and issubclass(cls, torch.nn.Module)):
        raise RuleFileError(f"`{request['class']}` is not an nn.Module class", def_line(cls) if callable(cls) else 1)
    tensors = {}
    for key, t in request["tensors"].items():
        with open(t["file"], "rb") as f:
            data = bytearray(f.read())
        dtype = getattr(torch, t["dtype"])
        flat = torch.frombuffer(data, dtype=dtype) if data else torch.empty(0, dtype=dtype)
        tensors[key] = flat.reshape(t["shape"]).clone()
    param_map = request.get("param_map", {})
    fmt = request.get("format", "torchscript")
    out = []
    for i, inst in enumerate(request["instances"]):
        entry = {"path": inst["path"], "ok": False}
        try:
            args = inst["args"]
            old_params = {a["old"]: tensors[f"{i}/{a['old']}"] for a in args if a["kind"] == "param"}
            old = _stand_in(request["old_class"], old_params)
            try:
                new, how = _construct(cls, old, request["old_class"], inst["path"])
            except _Skip:
                raise
            except Exception as e:
                raise _Skip(f"building {cls.__name__} failed at line {line_of(e, path, def_line(cls))}: {short(e)}")
            new = new.eval()
            index = {a["old"]: k for k, a in enumerate(args) if a["kind"] == "param"}
            mapping = {}
            new_tensors = list(new.named_parameters()) + list(new.named_buffers())
            claimed = {param_map.get(n, n) for n, _ in new_tensors}
            for name, t in new_tensors:
                old_name = param_map.get(name, name)
                if old_name not in index:
                    unclaimed = sorted(set(index) - claimed)
                    # --param helps only where the old module has a tensor no new name takes.
                    hint = (f"map it with --param {name}=OLD, OLD one of {', '.join(unclaimed)}" if unclaimed else
                            f"the old module has no such tensor: let {cls.__name__} leave it out (a "
                            f"{name}=False argument) or give it a from_module(old) classmethod")
                    raise _Skip(f"{cls.__name__}'s `{name}` has no counterpart `{old_name}` in the old module "
                                f"(it has {', '.join(sorted(index)) or 'no parameters'}; {hint})")
                have = tuple(old_params[old_name].shape)
                if tuple(t.shape) != have:
                    raise _Skip(f"{cls.__name__}'s `{name}` has shape {tuple(t.shape)}, the old `{old_name}` {have}")
                mapping[name] = index[old_name]
            activations = [k for k, a in enumerate(args) if a["kind"] == "input"]

            # NewModule's parameters and buffers become plain attributes that the forward sets from
            # its arguments, so traces and exports take them as inputs, never as constants.
            owners = {}
            for name in mapping:
                owner = new
                for part in name.split(".")[:-1]:
                    owner = getattr(owner, part)
                leaf = name.split(".")[-1]
                owner._parameters.pop(leaf, None)
                owner._buffers.pop(leaf, None)
                owners[name] = (owner, leaf)

            def forward(*values, _new=new, _mapping=mapping, _activations=activations, _owners=owners):
                for n, k in _mapping.items():
                    owner, leaf = _owners[n]
                    owner.__dict__[leaf] = values[k]
                return _new(*[values[k] for k in _activations])

            examples = tuple(_example(a, old_params) if a["kind"] == "input" else old_params[a["old"]].detach().clone()
                             for a in args)
            try:
                with torch.no_grad():
                    value = forward(*examples)
            except Exception as e:
                raise _Skip(f"{cls.__name__}'s forward fails on an input of shape "
                            f"{[tuple(examples[k].shape) for k in activations]}: {short(e)}")
            if not isinstance(value, torch.Tensor):
                raise _Skip(f"{cls.__name__}'s forward returns {type(value).__name__}, not one tensor")
            if fmt == "pt2":
                file = os.path.join(outdir, f"module{i}.pt2")
                try:
                    export(forward, examples, path, f"forward of {cls.__name__}", file)
                except RuleFileError as e:
                    raise _Skip(e.message)
                entry["pt2"] = file
            else:
                try:
                    with warnings.catch_warnings(), torch.no_grad():
                        warnings.simplefilter("ignore")
                        traced = torch.jit.trace(forward, examples, check_trace=False, strict=False)
                    g = traced.graph
                    torch._C._jit_pass_inline(g)
                    from graft._rule_compiler import _scalars

                    _scalars(g)
                    entry["ts"] = str(g)
                except Exception as e:
                    raise _Skip(f"{cls.__name__}'s forward does not trace: {short(e)}")
            entry["ok"] = True
            entry["how"] = how
        except _Skip as s:
            entry["reason"] = str(s)
        out.append(entry)
    return {"modules": out}
