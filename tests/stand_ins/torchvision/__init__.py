"""A stand-in for torchvision in the test environment only (stated in README, "mara-chem inside REINVENT 4").

REINVENT 4.8 imports torchvision for one function, ``transforms.ToTensor`` (molecule grids in TensorBoard).
No torchvision build matches the test environment's CPU torch (PyPI's 0.28.0 fails with "operator
torchvision::nms does not exist"), so the tests put this folder on the path when torchvision is absent; a
REINVENT environment has the real one. Nothing in mara-chem imports it.
"""

from torchvision import transforms  # noqa: F401
