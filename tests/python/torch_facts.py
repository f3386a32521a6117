"""What the venv's PyTorch says about itself, as JSON: version, library folder, torchvision's
version, whether CUDA is available, and its default intra-op thread count."""
import json
import os

import torch
import torchvision

print(json.dumps({
    "version": torch.__version__,
    "lib_dir": os.path.join(os.path.dirname(torch.__file__), "lib"),
    "torchvision": torchvision.__version__,
    "cuda": torch.cuda.is_available(),
    "threads": torch.get_num_threads(),
}))
