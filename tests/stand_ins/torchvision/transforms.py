"""``ToTensor`` as torchvision defines it for a PIL image: float CHW in [0, 1]."""

import numpy as np
import torch


class ToTensor:
    def __call__(self, picture):
        pixels = np.asarray(picture.convert("RGB"), dtype=np.float32) / 255.0
        return torch.from_numpy(pixels).permute(2, 0, 1).contiguous()
