"""How stock PyTorch sees a program's placeholders, to check that a save keeps them: each input
spec's kind, target (the parameter's, buffer's or constant's name) and persistence, the state
dict's keys, the user inputs (a keyword fixed at export is a ConstantArgument with its value), and whether ep.module() gives the original's outputs on the sample inputs.
Prints JSON. Usage: .venv/bin/python check_signature.py ORIGINAL.pt2 SAVED.pt2"""
import json
import sys

import torch


def specs(ep):
    return [{"kind": s.kind.name, "target": s.target, "persistent": s.persistent}
            for s in ep.graph_signature.input_specs if s.kind.name != "USER_INPUT"]


def user_inputs(ep):
    return [{"arg": type(s.arg).__name__, "name": s.arg.name, "value": repr(getattr(s.arg, "value", None))}
            for s in ep.graph_signature.input_specs if s.kind.name == "USER_INPUT"]


def main(original_path, saved_path):
    original, saved = torch.export.load(original_path), torch.export.load(saved_path)
    args, kwargs = original.example_inputs
    with torch.no_grad():
        same = torch.allclose(original.module()(*args, **kwargs), saved.module()(*args, **kwargs), atol=1e-5)
    print(json.dumps({"original": specs(original), "saved": specs(saved),
                      "user_inputs_original": user_inputs(original), "user_inputs_saved": user_inputs(saved),
                      "state_dict_original": sorted(original.state_dict), "state_dict_saved": sorted(saved.state_dict),
                      "outputs_equal": same}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
