"""Open PyTorch models in Graft from Python (a notebook, a script).

    import graft
    graft.show(model, example_args=(x,))        # export, save a .pt2, open it in the Graft GUI
    graft.export(model, "model.pt2", (x,))      # the same without opening anything

`model` may be an nn.Module (an fx.GraphModule included) with example arguments, or an
ExportedProgram from torch.export.export. Graft reads the saved program itself: nothing of the
Python process is shared with it.
"""
import os
import shutil
import subprocess
import tempfile

__all__ = ["export", "show", "gui_program"]


def _exported_program(model, example_args, dynamic_shapes=None):
    import torch

    if isinstance(model, torch.export.ExportedProgram):
        return model
    if isinstance(model, torch.nn.Module):
        if example_args is None:
            raise ValueError("graft needs example_args to export an nn.Module, e.g. graft.show(model, (x,))")
        if not isinstance(example_args, tuple):
            example_args = (example_args,)
        with torch.no_grad():
            return torch.export.export(model.eval(), example_args, dynamic_shapes=dynamic_shapes)
    raise TypeError(f"graft opens an nn.Module, fx.GraphModule or ExportedProgram, not {type(model).__name__}")


def export(model, path, example_args=None, dynamic_shapes=None):
    """Exports `model` (see the module's doc) and saves it as a .pt2 at `path`. Returns the path."""
    import torch

    program = _exported_program(model, example_args, dynamic_shapes)
    path = os.fspath(path)
    tmp = os.path.join(os.path.dirname(path) or ".", "." + os.path.basename(path) + ".tmp.pt2")
    torch.export.save(program, tmp)
    os.replace(tmp, path)  # atomic: a reader never sees half a file
    return path


def gui_program():
    """The Graft GUI to start: $GRAFT_GUI, `graft` on the PATH, or this checkout's build."""
    if os.environ.get("GRAFT_GUI"):
        return os.environ["GRAFT_GUI"]
    found = shutil.which("graft")
    if found:
        return found
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "build", "release", "app", "graft")
    if os.path.exists(built):
        return os.path.normpath(built)
    raise FileNotFoundError("Graft is not installed: install the graft package (.deb), build it "
                            "(bash packaging/dev.sh build), or set GRAFT_GUI to the graft program")


def show(model, example_args=None, path=None, dynamic_shapes=None):
    """Exports `model`, saves it (to `path`, or a temporary .pt2) and opens it in the Graft GUI.
    Returns the path of the saved program; the GUI runs on its own."""
    if path is None:
        fd, path = tempfile.mkstemp(prefix="graft-", suffix=".pt2")
        os.close(fd)
    export(model, path, example_args, dynamic_shapes)
    subprocess.Popen([gui_program(), path], start_new_session=True)
    return path
