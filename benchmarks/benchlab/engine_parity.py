"""REINVENT 4.8 and mara-chem stepped from the same prior and seed: what each engine's learning step sees.

    OMP_NUM_THREADS=1 python benchmarks/engine_parity.py --task zaleplon_mpo_zinc \\
        --prior priors/zinc-gru-2x256-e11.prior --steps 40 --seeds 0 1 2 --out /tmp/parity

REINVENT runs the REINVENT peer's ``pmo`` preset (``benchlab.peers.reinvent``: σ 500, rate 5e-4, batch 64,
replay memory 100 with 24 replayed a step as stored, no diversity filter), its run file written by the peer's own
writer and run by REINVENT's own command line in this process. mara-chem runs the lab's variant ``--variant``
(default ``pmo_dap_parity``: the same settings in mara-chem's engine) through the grid's own run file
(``benchlab.jobs.run_config``), changed by any ``--set section.key=VALUE``. Both load the same weights: the prior
converted for REINVENT by the peer (``convert_prior``), which mara-chem reads too.

The two engines draw their random numbers differently (REINVENT samples every row to the longest one, mara-chem
only the unfinished rows), so their batches differ from the first token on: a comparison is of trajectories'
statistics over seeds, not of equal batches. Per step and engine, read from inside each engine's step in this
process (REINVENT's ``Learning.report``, mara-chem's ``AgentUpdate`` and ``StagedLearning._step``):

- ``loss`` (the minimised loss), ``nll`` (mean agent NLL of the batch rows in the loss);
- ``invalid``; ``dup`` (rows repeating an earlier row's molecule, by the engine's own molecule identity:
  REINVENT's canonical SMILES drop stereo, mara-chem's keep it); ``seen`` (distinct molecules of the batch found
  in an earlier step: cache hits, scored at their real score); ``new`` (oracle calls: first occurrences);
- ``stereo``: new molecules whose stereo-free form was found before (in an earlier step or earlier in the batch):
  calls mara-chem pays and REINVENT does not;
- ``replayed`` rows and how many of them are molecules of the step's own batch (``own``);
- ``top10`` (mean of the 10 best scores found so far), ``memory`` (replay memory size) and ``mem_top``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from benchlab.jobs import Job, run_config
from benchlab.peers.peer_run import resolve_task
from benchlab.peers.reinvent import PRESETS, convert_prior, write_reinvent_run_file
from benchlab.variants import load_variants

ENGINES = ("reinvent", "mara-chem")
COLUMNS = ("loss", "nll", "invalid", "dup", "seen", "new", "stereo", "replayed", "own", "top10", "memory", "mem_top")


@dataclass
class StepStats:
    step: int
    loss: float
    nll: float
    invalid: int
    dup: int
    seen: int
    new: int
    stereo: int
    replayed: int
    own: int
    top10: float
    memory: int
    mem_top: float


@dataclass
class Tracker:
    """Turns each step's rows (molecule per row, None: invalid; score per row) into :class:`StepStats`."""

    best: dict[str, float] = field(default_factory=dict)  # every molecule found so far, its score
    flat: set[str] = field(default_factory=set)  # the stereo-free SMILES of every molecule found so far
    steps: list[StepStats] = field(default_factory=list)

    def step(self, molecules: list[str | None], scores: list[float], loss: float, nll: float,
             replayed: list[str], memory: list[tuple[str, float]]) -> None:
        from mara_chem.chem.smiles import canonicalize

        distinct = list(dict.fromkeys(m for m in molecules if m is not None))
        valid = [m for m in molecules if m is not None]
        seen = sum(m in self.best for m in distinct)
        stereo = 0
        for m in distinct:
            if m not in self.best:
                flat = canonicalize(m, isomeric=False) or m
                stereo += flat in self.flat
                self.flat.add(flat)
        first_score: dict[str, float] = {}
        for m, s in zip(molecules, scores):
            if m is not None and m not in first_score:
                first_score[m] = float(s) if np.isfinite(s) else 0.0
        for m in distinct:
            self.best.setdefault(m, first_score[m])
        top = sorted(self.best.values(), reverse=True)[:10]
        batch = set(distinct)
        self.steps.append(StepStats(
            step=len(self.steps) + 1, loss=loss, nll=nll, invalid=len(molecules) - len(valid),
            dup=len(valid) - len(distinct), seen=seen, new=len(distinct) - seen, stereo=stereo, replayed=len(replayed),
            own=sum(r in batch for r in replayed), top10=float(np.mean(top)) if top else 0.0,
            memory=len(memory), mem_top=max((s for _, s in memory), default=0.0)))


def _wrap(owner: type, name: str, after: Callable[..., None]) -> Callable[[], None]:
    """``owner.name`` replaced by a call of the original followed by ``after(self, result, *args)``; returns the
    function that puts the original back."""
    original = getattr(owner, name)

    def wrapper(self, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        after(self, result, *args, **kwargs)
        return result

    setattr(owner, name, wrapper)
    return lambda: setattr(owner, name, original)


def run_reinvent(task, prior: Path, out: Path, seed: int, steps: int, batch_size: int = 64) -> Tracker:
    """REINVENT's own staged learning on the peer's ``pmo`` run file, recorded at each step's report."""
    from mara_chem.reinvent.compat import stub_torchvision

    stub_torchvision()  # as the peer's child process: REINVENT's one torchvision function, where it is absent
    from reinvent.models.model_factory.sample_batch import SmilesState
    from reinvent.runmodes.RL.learning import Learning
    from reinvent.runmodes.RL.memories.inception import Inception
    from reinvent.Reinvent import main_script

    tracker, replayed = Tracker(), []

    def on_inception(memory, sample, orig_smilies, *rest) -> None:
        replayed[:] = [] if sample is None else list(sample[0])

    def on_report(learning, result, step, mean_score, scaffolds, score_results, agent_lls, prior_lls,
                  augmented_nll, loss) -> None:
        from mara_chem.chem.smiles import canonicalize

        sampled = learning.sampled
        molecules = [None if state == SmilesState.INVALID else smiles
                     for smiles, state in zip(sampled.smilies, sampled.states)]
        memory = [(str(s), float(v)) for s, v, _ in (learning.inception.storage if learning.inception else [])]
        # replayed SMILES are as sampled; the batch's molecules are REINVENT's canonical (stereo-free) SMILES
        own = [canonicalize(s, isomeric=False) for s in replayed]
        tracker.step(molecules, list(score_results.total_scores), float(loss), float(-agent_lls.mean()),
                     [o for o in own if o is not None], memory)

    settings = {**PRESETS["pmo"], "batch_size": batch_size}
    run_file, _ = write_reinvent_run_file(task, prior, out, settings, seed, steps)
    restore = [_wrap(Inception, "__call__", on_inception), _wrap(Learning, "report", on_report)]
    saved, sys.argv = sys.argv, ["reinvent", str(run_file), "--log-level", "warning"]
    try:
        main_script()
    finally:
        sys.argv = saved
        for undo in restore:
            undo()
    return tracker


def mara_chem_run(task, variant: str, prior: Path, out: Path, seed: int, steps: int,
                  changes: list[tuple[list[str], Any]], batch_size: int = 64) -> dict[str, Any]:
    """The grid's run file for ``variant`` on ``task`` (one stage of ``steps`` steps, a budget it cannot reach),
    with ``changes`` applied."""
    job = Job(task, load_variants()[variant], seed, steps * batch_size * 2, str(prior), out, batch_size, steps)
    cfg = run_config(job)
    for path, value in changes:
        table = cfg
        for key in path[:-1]:
            table = table.setdefault(key, {})
        table[path[-1]] = value
    return cfg


def run_mara_chem(cfg: dict[str, Any], out: Path) -> Tracker:
    """mara-chem's staged learning on ``cfg``, recorded after each step."""
    from mara_chem.reinvent.export import to_toml
    from mara_chem.rl.agent_update import AgentUpdate
    from mara_chem.rl.config import load_run_config
    from mara_chem.rl.loop import StagedLearning
    from mara_chem.rl.replay import ReplayMemory

    tracker, last = Tracker(), {}

    def on_update(update, loss, samples, memory) -> None:
        last["samples"], last["loss"] = samples, loss

    def on_sample(memory, picked, *args, **kwargs) -> None:
        last["replayed"] = [s for s, _ in picked]

    def on_step(loop, record, *args) -> None:
        from mara_chem.chem.smiles import canonicalize

        samples = last.pop("samples")
        nll = float(np.nanmean(samples.columns["Agent"]))
        replayed = [canonicalize(s) for s in last.pop("replayed", [])]
        memory = list(loop.memory.entries) if loop.memory is not None else []
        tracker.step(list(samples.canonical), list(samples.totals), float(last.pop("loss")), nll,
                     [r for r in replayed if r is not None], memory)

    path = out / "run.toml"
    path.write_text(to_toml(cfg))
    restore = [_wrap(AgentUpdate, "__call__", on_update), _wrap(ReplayMemory, "sample", on_sample),
               _wrap(StagedLearning, "_step", on_step)]
    try:
        StagedLearning(load_run_config(path), overwrite=True, quiet=True).run()
    finally:
        for undo in restore:
            undo()
    return tracker


def parse_change(text: str) -> tuple[list[str], Any]:
    """``section.key=VALUE`` (VALUE in TOML: 24, true, "score") as (path, value); a bad one is a one-line error."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--set {text!r}: expected section.key=VALUE")
    try:
        parsed = tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        parsed = value  # a bare word is a string
    return key.split("."), parsed


def summary(trackers: list[Tracker], new_target: int) -> dict[str, float]:
    """Means over seeds: new molecules a step, steps to ``new_target`` new molecules (None: not reached), the last
    top-10 and the share of replayed rows that were the step's own molecules."""
    def steps_to(t: Tracker) -> float:
        total = 0
        for s in t.steps:
            total += s.new
            if total >= new_target:
                return s.step
        return float("nan")

    def mean(values: list[float]) -> float:
        return statistics.fmean(values) if values else float("nan")

    return {
        "new_per_step": mean([mean([s.new for s in t.steps]) for t in trackers]),
        "seen_per_step": mean([mean([s.seen for s in t.steps]) for t in trackers]),
        "stereo_per_step": mean([mean([s.stereo for s in t.steps]) for t in trackers]),
        "dup_per_step": mean([mean([s.dup for s in t.steps]) for t in trackers]),
        "nll_last5": mean([mean([s.nll for s in t.steps[-5:]]) for t in trackers]),
        "loss_mean": mean([mean([s.loss for s in t.steps]) for t in trackers]),
        f"steps_to_{new_target}_new": mean([steps_to(t) for t in trackers]),
        "top10_last": mean([t.steps[-1].top10 for t in trackers if t.steps]),
        "own_share_of_replay": mean([sum(s.own for s in t.steps) / max(1, sum(s.replayed for s in t.steps))
                                     for t in trackers]),
    }


def stereo_repeats(run_dir: Path, window: int = 50) -> str:
    """One line for a run folder's oracle log: its calls, how many were stereoisomers of a molecule it had already
    scored (calls a stereo-free engine does not pay), and per ``window`` steps the calls a step and those repeats."""
    import csv
    from collections import defaultdict

    from mara_chem.chem.smiles import canonicalize

    with open(run_dir / "oracle_log.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    found: set[str] = set()
    per: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        flat = canonicalize(row["smiles"], isomeric=False) or row["smiles"]
        part = per[(int(row["step"]) - 1) // window]
        part[0] += 1
        part[1] += flat in found
        found.add(flat)
    repeats = len(rows) - len(found)
    parts = " ".join(f"[{w * window + 1}-{w * window + window}] {c / window:.1f}/{r}" for w, (c, r) in sorted(per.items()))
    return (f"{run_dir}: {len(rows)} calls, {len(found)} stereo-free molecules, {repeats} stereo repeats "
            f"({repeats / max(1, len(rows)):.1%}); calls a step / stereo repeats per {window} steps: {parts}")


def table(name: str, tracker: Tracker, every: int) -> str:
    lines = [f"{name}", "| step | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for s in tracker.steps:
        if s.step % every and s.step != len(tracker.steps):
            continue
        row = asdict(s)
        lines.append(f"| {s.step} | " + " | ".join(f"{row[c]:.3f}" if isinstance(row[c], float) else str(row[c])
                                                     for c in COLUMNS) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="zaleplon_mpo_zinc")
    parser.add_argument("--prior", default="priors/zinc-gru-2x256-e11.prior",
                        help="a mara-chem prior file or a bundled prior's name")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=64, help="both engines' batch (the preset's is 64)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--engines", nargs="+", choices=ENGINES, default=list(ENGINES))
    parser.add_argument("--variant", default="pmo_dap_parity", help="mara-chem's lab variant (benchmarks/variants.toml)")
    parser.add_argument("--set", dest="changes", type=parse_change, action="append", default=[],
                        metavar="SECTION.KEY=VALUE", help="a change to mara-chem's run file (repeatable)")
    parser.add_argument("--new-target", type=int, default=1000, help="count steps to this many new molecules")
    parser.add_argument("--every", type=int, default=5, help="print every N-th step of each run")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="write engine_parity.json here")
    parser.add_argument("--stereo-repeats", type=Path, nargs="+", metavar="RUN_DIR",
                        help="only count, in these run folders' oracle logs, the calls spent on stereoisomers of "
                             "molecules already scored, and exit")
    args = parser.parse_args(argv)
    if args.stereo_repeats:
        for run_dir in args.stereo_repeats:
            print(stereo_repeats(run_dir), flush=True)
        return 0
    torch.set_num_threads(args.threads)
    task = resolve_task(args.task)
    if args.variant not in load_variants():
        parser.error(f"--variant {args.variant!r} is not in benchmarks/variants.toml")
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        prior, _ = convert_prior(args.prior, tmp)
        from mara_chem.rl.config import ConfigError, load_run_config

        for engine in args.engines:
            trackers = []
            for seed in args.seeds:
                out = tmp / engine / f"seed{seed}"
                out.mkdir(parents=True)
                if engine == "reinvent":
                    tracker = run_reinvent(task, prior, out, seed, args.steps, args.batch_size)
                else:
                    cfg = mara_chem_run(task, args.variant, prior, out, seed, args.steps, args.changes,
                                        args.batch_size)
                    try:
                        load_run_config(cfg)
                    except ConfigError as exc:
                        parser.error(f"mara-chem refuses the run file: {exc}")
                    tracker = run_mara_chem(cfg, out)
                trackers.append(tracker)
                print(table(f"{engine}, seed {seed}", tracker, args.every), flush=True)
            results[engine] = {"summary": summary(trackers, args.new_target),
                               "runs": {str(s): [asdict(x) for x in t.steps] for s, t in zip(args.seeds, trackers)}}
    changes = " ".join(f"--set {'.'.join(p)}={json.dumps(v)}" for p, v in args.changes)
    print(f"\n{task.name}, prior {args.prior}, {args.steps} steps of {args.batch_size}, seeds {args.seeds}, mara-chem variant "
          f"{args.variant} {changes}".rstrip())
    keys = list(next(iter(results.values()))["summary"])
    print("| engine | " + " | ".join(keys) + " |\n" + "|---" * (len(keys) + 1) + "|")
    for engine, result in results.items():
        print(f"| {engine} | " + " | ".join(f"{result['summary'][k]:.3f}" for k in keys) + " |")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        record = {"task": task.name, "prior": args.prior, "steps": args.steps, "seeds": args.seeds,
                  "variant": args.variant, "changes": [[".".join(p), v] for p, v in args.changes], **results}
        (args.out / "engine_parity.json").write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
