"""Resident memory of Vina's receptor maps per grid point (the figure behind the docking box-size check).

    PYTHONPATH=. python benchmarks/vina_map_memory.py 20 40

computes DRD2's maps for cubic boxes of the given edges (spacing 0.375 A), each in a fresh process, and
prints the peak RSS growth; the slope between two edges is the bytes per grid point that
``mara_chem.scoring.docking.targets.VINA_MAP_BYTES_PER_POINT`` records.
"""

from __future__ import annotations

import resource
import subprocess
import sys

SPACING = 0.375


def measure(edge: float) -> tuple[int, float]:
    """(grid points, peak RSS growth in bytes) of computing DRD2's maps for one cubic box."""
    from vina import Vina

    from mara_chem.scoring.docking.targets import dockstring_target

    target = dockstring_target("DRD2")
    vina = Vina(sf_name="vina", cpu=1, verbosity=0)
    vina.set_receptor(str(target.receptor))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    vina.compute_vina_maps(center=list(target.center), box_size=[edge] * 3, spacing=SPACING)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return (int(edge / SPACING) + 1) ** 3, (after - before) * 1024.0


if __name__ == "__main__":
    if sys.argv[1] == "--one":
        points, grown = measure(float(sys.argv[2]))
        print(points, grown)
        sys.exit(0)
    rows = []
    for edge in sys.argv[1:]:
        out = subprocess.run([sys.executable, __file__, "--one", edge], capture_output=True, text=True, check=True)
        points, grown = out.stdout.split()
        rows.append((float(edge), int(points), float(grown)))
        print(f"edge {edge} A: {int(points):,} points, RSS +{float(grown) / 2**20:.0f} MiB")
    for (e1, p1, g1), (e2, p2, g2) in zip(rows, rows[1:]):
        print(f"{e1:g} -> {e2:g} A: {(g2 - g1) / (p2 - p1):.0f} bytes per grid point")
