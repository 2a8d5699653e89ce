"""REINVENT 4.8 and mara-chem stepped from the same prior and seed (``benchlab.engine_parity``).

    python benchmarks/engine_parity.py --task zaleplon_mpo_zinc --prior priors/zinc-gru-2x256-e11.prior \\
        --steps 40 --seeds 0 1 2 --every 5 --out OUT
    python benchmarks/engine_parity.py --stereo-repeats RUN_DIR [RUN_DIR ...]
"""

import sys

from benchlab.engine_parity import main

if __name__ == "__main__":
    sys.exit(main())
