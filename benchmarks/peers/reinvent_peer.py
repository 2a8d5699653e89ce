"""REINVENT 4.8 as a peer on a benchmark task (``benchlab.peers.reinvent``; ``mara-chem-bench-peer reinvent``).

    python benchmarks/peers/reinvent_peer.py --task zaleplon_mpo --preset pmo --prior PRIOR --budget 10000 \\
        --seed 0 --out runs/reinvent_pmo/zaleplon/seed0
"""

import sys

from benchlab.peers.reinvent import main

if __name__ == "__main__":
    sys.exit(main())
