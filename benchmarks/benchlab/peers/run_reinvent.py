"""REINVENT 4's own command line (``reinvent RUN.toml ...``), run with one stand-in: where torchvision is not
importable, mara-chem's ``stub_torchvision`` provides the one function REINVENT imports from it
(``transforms.ToTensor``, used only for molecule images in TensorBoard, which the peer runs do not write).
Nothing else of REINVENT is touched: no mara-chem strategy is registered (that is ``mara-chem reinvent``)."""

from __future__ import annotations

import sys

from mara_chem.reinvent.compat import stub_torchvision

if __name__ == "__main__":
    stub_torchvision()
    from reinvent.Reinvent import main_script

    sys.argv[0] = "reinvent"
    main_script()
