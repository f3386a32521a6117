"""Graft's child process for Python rules: runs a rule file the user chose and writes the ATen
graphs of its functions for Graft's rule engine. Not an API. Graft runs it through its worker
(_worker.py: run_job in a fork per job); by hand:

    python _rule_compiler.py rules RULE_FILE OUTDIR TIMEOUT_S
    python _rule_compiler.py module RULE_FILE OUTDIR TIMEOUT_S REQUEST_JSON

Writes OUTDIR/result.json: {"rules": [...]} or {"modules": [...]}, or {"error": {"message", "line"}}.
A run longer than TIMEOUT_S dumps its stack to OUTDIR/timeout.txt and exits (faulthandler), so an
endless loop is reported with its line.
"""
import faulthandler
import inspect
import json
import os
import re
import sys
import traceback
import warnings


class RuleFileError(Exception):
    def __init__(self, message, line=0):
        super().__init__(message)
        self.message = message
        self.line = line


def _same_file(a, b):
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except OSError:
        return False


def _line_of(exc, path, default=0):
    """The rule file's line an exception comes from: its traceback's last frame in the file, else
    a `File "path", line N` in the message (torch.export's user stack), else `default`."""
    line = 0
    for frame in traceback.extract_tb(exc.__traceback__):
        if _same_file(frame.filename, path):
            line = frame.lineno
    if line:
        return line
    for m in re.finditer(r'File "([^"]+)", line (\d+)', str(exc)):
        if _same_file(m.group(1), path):
            line = int(m.group(2))
    return line or default


def _short(exc):
    text = str(exc).strip()
    lines = [l for l in text.splitlines() if l.strip()]
    head = lines[0] if lines else ""
    if len(head) > 300:
        head = head[:300] + "..."
    name = type(exc).__name__
    return f"{name}: {head}" if head else name


def _load(path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("graft_user_rules", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["graft_user_rules"] = module
    try:
        with open(path, "rb") as f:
            source = f.read()
        code = compile(source, path, "exec")
    except SyntaxError as e:
        raise RuleFileError(f"syntax error: {e.msg}", e.lineno or 0)
    try:
        exec(code, module.__dict__)
    except RuleFileError:
        raise
    except Exception as e:
        raise RuleFileError(f"running the rule file failed: {_short(e)}", _line_of(e, path, 1))
    return module


def _def_line(fn):
    try:
        return inspect.getsourcelines(fn)[1]
    except (OSError, TypeError):
        code = getattr(fn, "__code__", None)
        return code.co_firstlineno if code else 0


def _rules_of(module, path):
    from graft.rules import Rule

    if hasattr(module, "RULES"):
        rules = list(module.RULES)
        for r in rules:
            if not isinstance(r, Rule):
                raise RuleFileError(f"RULES holds {type(r).__name__}, not graft.rules.Rule", 1)
        if not rules:
            raise RuleFileError("RULES is empty", 1)
        return rules
    pattern = getattr(module, "pattern", None)
    replacement = getattr(module, "replacement", None)
    if not callable(pattern) or not callable(replacement):
        raise RuleFileError("the file defines neither `pattern` and `replacement` functions nor a RULES list", 1)
    stem = os.path.splitext(os.path.basename(path))[0]
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", stem)
    doc = (module.__doc__ or "").strip().splitlines()
    return [Rule(pattern, replacement, name=name, description=doc[0] if doc else "",
                 condition=getattr(module, "CONDITION", None))]


def _parameters(fn):
    return [p for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _examples(rule, fn, path, site_ranks=None):
    import torch
    from graft.rules import _TensorSpec, DEFAULT_RANK

    if rule.example_inputs is not None:
        ex = rule.example_inputs() if callable(rule.example_inputs) else rule.example_inputs
        return tuple(ex)
    specs, free = [], []
    for i, p in enumerate(_parameters(fn)):
        ann = p.annotation
        if isinstance(ann, _TensorSpec):
            specs.append(ann)
        elif ann is inspect.Parameter.empty or ann is torch.Tensor or ann == "Tensor" or ann == "torch.Tensor":
            specs.append(_TensorSpec(DEFAULT_RANK))
            free.append(i)
        else:
            raise RuleFileError(f"argument `{p.name}` of {fn.__name__}: every argument is a tensor "
                                f"(annotate it as Tensor[rank] from graft.rules, or leave it bare)", _def_line(fn))
    if free and site_ranks:
        for i, rank in _ranks_from_sites(fn, specs, free, site_ranks).items():
            specs[i] = _TensorSpec(rank)
    return tuple(s.example() for s in specs)


class _Restart(Exception):
    pass


def _ranks_from_sites(fn, specs, free, site_ranks):
    """Ranks for the arguments without annotation, from the model: each takes the rank of the
    model's tensors at the place of the op it is first passed to (site_ranks: op kind → ranks by
    position and by argument name). `fn` runs with the examples so far under a torch function
    mode; when an op reads an argument whose rank is not yet known, the rank is set and `fn` runs
    again, until no op tells more."""
    import torch
    from torch.overrides import TorchFunctionMode

    ranks = {}
    todo = set(free)

    def op_ranks(func):
        name = getattr(func, "__name__", "") or ""
        name = name.split(".")[0].strip("_")
        # A traced model holds convolutions as aten::_convolution (same leading arguments).
        for kind in [name] + (["_convolution", "convolution"] if name.startswith("conv") else []):
            if f"aten::{kind}" in site_ranks:
                return site_ranks[f"aten::{kind}"]
        return None

    class Probe(TorchFunctionMode):
        def __init__(self, tensors):
            super().__init__()
            self.tensors = tensors

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            known = op_ranks(func)
            if known and todo:
                names = {}
                try:
                    bound = inspect.signature(func).bind(*args, **kwargs)
                    names = {id(v): k for k, v in bound.arguments.items() if isinstance(v, torch.Tensor)}
                except (TypeError, ValueError):
                    pass
                changed = False
                flat = [(pos, a) for pos, a in enumerate(args)] + [(None, v) for v in kwargs.values()]
                for pos, a in flat:
                    for i in list(todo):
                        if a is not self.tensors[i]:
                            continue
                        rank = known["names"].get(names.get(id(a), ""), -1)
                        if rank < 0 and pos is not None and pos < len(known["positions"]):
                            rank = known["positions"][pos]
                        if rank >= 0:
                            todo.discard(i)
                            ranks[i] = rank
                            changed = changed or rank != a.dim()
                if changed:
                    raise _Restart()
            return func(*args, **kwargs)

    from graft.rules import _TensorSpec

    for _ in range(len(free) + 1):
        tensors = [(_TensorSpec(ranks[i]) if i in ranks else s).example() for i, s in enumerate(specs)]
        try:
            with torch.no_grad(), Probe(tensors):
                fn(*tensors)
            break
        except _Restart:
            continue
        except Exception:
            break
    return ranks


class _Wrapper:
    pass


def _module_of(fn):
    import torch

    class FunctionModule(torch.nn.Module):
        def __init__(self, f):
            super().__init__()
            self.f = f

        def forward(self, *args):
            return self.f(*args)

    return FunctionModule(fn).eval()


def _check_result(fn, value, path):
    import torch

    if not isinstance(value, torch.Tensor):
        raise RuleFileError(f"{fn.__name__} returns {type(value).__name__}: a rule's functions return one tensor",
                            _def_line(fn))


def _scalars(graph):
    """Python numbers a trace recorded as 0-dim tensor constants become scalar constants (the IR
    text would print them rounded to 6 digits)."""
    for n in list(graph.nodes()):
        if n.kind() == "prim::Constant" and n.hasAttribute("value") and n.kindOf("value") == "t":
            v = n.t("value")
            if v.dim() == 0:
                with graph.insert_point_guard(n):
                    c = graph.insertConstant(v.item())
                n.output().replaceAllUsesWith(c)
                n.destroy()


def _ir(graph):
    import torch

    torch._C._jit_pass_inline(graph)
    _scalars(graph)
    return str(graph)


def _unannotated(fn, scratch):
    """`fn` compiled again from its source without argument annotations (torch.jit.script reads
    the source and knows no Tensor[rank]), from a file in `scratch` so that script finds it."""
    import ast
    import textwrap

    source = textwrap.dedent(inspect.getsource(fn))
    tree = ast.parse(source)
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise ValueError("not a def")
    node.decorator_list = []
    for a in node.args.args + node.args.posonlyargs + node.args.kwonlyargs:
        a.annotation = None
    node.returns = None
    file = os.path.join(scratch, f"script_{fn.__name__}_{id(fn)}.py")
    text = ast.unparse(tree) + "\n"
    with open(file, "w") as f:
        f.write(text)
    import linecache

    linecache.checkcache(file)
    namespace = dict(fn.__globals__)
    exec(compile(text, file, "exec"), namespace)
    return namespace[node.name]


def _torchscript(fn, examples, path, what, prefer_script, scratch):
    """The function as TorchScript IR: traced (what a traced model holds), or scripted when
    `prefer_script` and it scripts (shape computations stay rank-generic)."""
    import torch

    if prefer_script:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scripted = torch.jit.script(_unannotated(fn, scratch))
            g = scripted.graph
            torch._C._jit_pass_inline(g)
            torch._C._jit_pass_constant_propagation(g)
            torch._C._jit_pass_dce(g)
            text = str(g)
            if "prim::If" not in text and "prim::Loop" not in text and "prim::CallFunction" not in text:
                return text, "script"
        except Exception:
            pass
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(fn, examples, check_trace=False, strict=False)
        return _ir(traced.graph), "trace"
    except Exception as e:
        raise RuleFileError(f"the {what} does not trace with torch.jit.trace: {_short(e)}", _line_of(e, path, _def_line(fn)))


def _export(fn, examples, path, what, out_file):
    import torch
    from torch.export import Dim

    module = _module_of(fn)
    dynamic = tuple({i: Dim.AUTO for i in range(t.dim())} if isinstance(t, torch.Tensor) else None for t in examples)
    first = None
    # A replacement exported with static sizes would write the example's sizes into the model.
    for shapes in ({"args": dynamic}, None) if what == "pattern" else ({"args": dynamic},):
        try:
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                ep = torch.export.export(module, examples, dynamic_shapes=shapes)
            torch.export.save(ep, out_file)
            return "dynamic" if shapes is not None else "static"
        except Exception as e:
            first = first or e
    raise RuleFileError(f"the {what} does not export with torch.export: {_short(first)}", _line_of(first, path, _def_line(fn)))


def _sized_arguments(program_file):
    """Indices of the arguments whose sizes an exported program reads (aten.sym_size)."""
    import torch

    ep = torch.export.load(program_file)
    names = [n.name for n in ep.graph.nodes if n.op == "placeholder"]
    sized = set()
    for n in ep.graph.nodes:
        if n.op == "call_function" and str(n.target).startswith("aten.sym_size"):
            src = n.args[0]
            if getattr(src, "op", None) == "placeholder":
                sized.add(names.index(src.name))
    return sorted(sized)


def _rank_variants(rule, fn, examples, program_file, path, outdir, i):
    """An exported replacement that reads sizes holds for its example's ranks: export it again
    with the first such argument at ranks 1 to 4, where pattern and replacement run there."""
    import torch

    from graft.rules import EXAMPLE_SIZE

    sized = _sized_arguments(program_file)
    if not sized or rule.example_inputs is not None:
        return []
    k = sized[0]
    variants = []
    for rank in range(1, 5):
        if rank == examples[k].dim():
            continue
        shaped = list(examples)
        shaped[k] = torch.randn((EXAMPLE_SIZE,) * rank, dtype=examples[k].dtype)
        shaped = tuple(shaped)
        try:
            with torch.no_grad():
                rule.pattern(*[t.clone() for t in shaped])
                fn(*[t.clone() for t in shaped])
            file = os.path.join(outdir, f"rule{i}_replacement_rank{rank}.pt2")
            _export(fn, shaped, path, "replacement", file)
            variants.append({"file": file, "rank": rank})
        except Exception:
            continue
    return variants


def compile_rules(path, outdir, request=None):
    import torch

    module = _load(path)
    rules = _rules_of(module, path)
    names = set()
    out = []
    for i, rule in enumerate(rules):
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", rule.name):
            raise RuleFileError(f"rule name '{rule.name}' may hold only letters, digits, '.', '_' and '-'", _def_line(rule.pattern))
        if rule.name in names:
            raise RuleFileError(f"two rules are named '{rule.name}'", _def_line(rule.pattern))
        names.add(rule.name)
        p_args = [p.name for p in _parameters(rule.pattern)]
        r_args = [p.name for p in _parameters(rule.replacement)]
        if len(p_args) != len(r_args) or p_args != r_args:
            raise RuleFileError(
                f"{rule.replacement.__name__} takes ({', '.join(r_args)}) but {rule.pattern.__name__} takes "
                f"({', '.join(p_args)}): a replacement takes the same arguments as its pattern", _def_line(rule.replacement))
        if not p_args:
            raise RuleFileError(f"{rule.pattern.__name__} takes no arguments: a pattern computes its result from its inputs",
                                _def_line(rule.pattern))
        examples = _examples(rule, rule.pattern, path, (request or {}).get("site_ranks"))
        if len(examples) != len(p_args):
            raise RuleFileError(f"example_inputs has {len(examples)} tensors for {len(p_args)} arguments", _def_line(rule.pattern))
        entry = {"name": rule.name, "description": rule.description, "condition": rule.condition,
                 "line": _def_line(rule.pattern), "replacement_line": _def_line(rule.replacement), "args": p_args}
        for fn, what in ((rule.pattern, "pattern"), (rule.replacement, "replacement")):
            torch.manual_seed(0)
            try:
                with torch.no_grad():
                    value = fn(*[t.clone() for t in examples])
            except Exception as e:
                raise RuleFileError(f"the {what} `{fn.__name__}` fails on example inputs of shapes "
                                    f"{[tuple(t.shape) for t in examples]}: {_short(e)} (annotate the arguments' ranks: "
                                    f"x: Tensor[4])", _line_of(e, path, _def_line(fn)))
            _check_result(fn, value, path)
            ts, how = _torchscript(fn, examples, path, what, (what == "replacement"), outdir)
            entry[f"ts_{what}"] = ts
            entry[f"ts_{what}_how"] = how
            pt2 = os.path.join(outdir, f"rule{i}_{what}.pt2")
            entry[f"pt2_{what}_shapes"] = _export(fn, examples, path, what, pt2)
            entry[f"pt2_{what}"] = pt2
            if what == "replacement":
                entry["pt2_variants"] = _rank_variants(rule, fn, examples, pt2, path, outdir, i)
        out.append(entry)
    return {"rules": out}


def run_job(mode, path, outdir, timeout, request_file=None):
    """One job: runs `path` (a rule file, or a module file for mode "module") and writes
    OUTDIR/result.json. A run longer than `timeout` seconds dumps its stack to OUTDIR/timeout.txt
    and exits the process (faulthandler): run it in a process of its own (a fork of the worker)."""
    import torch  # noqa: F401  (imported before the clock starts: the limit is the rule file's)

    timeout_file = open(os.path.join(outdir, "timeout.txt"), "w")
    faulthandler.dump_traceback_later(timeout, exit=True, file=timeout_file)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        if mode == "rules":
            request = None
            if request_file:
                with open(request_file) as f:
                    request = json.load(f)
            result = compile_rules(path, outdir, request)
        elif mode == "module":
            from graft._module_compiler import compile_module

            with open(request_file) as f:
                request = json.load(f)
            result = compile_module(path, outdir, request, _load, RuleFileError, _line_of, _short, _def_line, _export)
        else:
            raise RuleFileError(f"unknown mode {mode}")
    except RuleFileError as e:
        result = {"error": {"message": e.message, "line": e.line}}
    except Exception as e:
        result = {"error": {"message": _short(e), "line": _line_of(e, path, 0)}}
    faulthandler.cancel_dump_traceback_later()
    tmp = os.path.join(outdir, "result.json.tmp")
    with open(tmp, "w") as f:
        json.dump(result, f)
    os.replace(tmp, os.path.join(outdir, "result.json"))


def main():
    run_job(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None)


if __name__ == "__main__":
    main()
