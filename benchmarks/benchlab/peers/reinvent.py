"""REINVENT 4.8 itself as a peer on a benchmark task: REINVENT's own staged-learning runner, its own DAP, the
task's objective through mara-chem's REINVENT scoring plugin (``MaraGuacamol`` for the PMO tasks).

    mara-chem-bench-peer reinvent --task zaleplon_mpo --preset pmo --prior PRIOR --budget 10000 \\
        --seed 0 --out runs/reinvent_pmo/zaleplon/seed0

1. The prior (a mara-chem prior file; default the bundled one) is converted by ``mara-chem prior convert --to
   reinvent``, after ``$`` following ``$`` is made near-certain (:func:`convert_prior`: REINVENT's likelihoods
   then equal the prior's own).
2. The run file is written as a mara-chem run file (validated by mara-chem) and exported to REINVENT's format
   by ``mara-chem export-reinvent`` (its changes are kept in ``peer_run.json``).
3. REINVENT runs in a child process (``benchlab.peers.run_reinvent``: REINVENT's command line, torchvision's one used
   function stood in where torchvision is absent). REINVENT has no oracle budget: the peer reads REINVENT's
   summary CSV while it grows and, once it holds ``budget`` unique valid molecules (PMO's count), stops
   REINVENT the way REINVENT provides for (SIGUSR1: ``StageInterruptedControlled``, checkpoint written).
4. The summary CSV is converted into mara-chem's oracle log (mara-chem's writer): one call per first
   occurrence of a valid canonical SMILES, in REINVENT's sampling order, with the endpoint's score as REINVENT
   wrote it (7 decimals), up to the budget; repeats and invalid SMILES cost nothing. ``mara-chem metrics``
   then measures it like any mara-chem run.
5. PMO's convergence stop ends a run that no longer finds better molecules (``--patience``, PMO's default 5;
   :class:`TopPatience`): a REINVENT run whose policy has collapsed onto known molecules would otherwise sample
   for hours to reach the budget (σ 500 on zaleplon_mpo: 2,861 steps for 9,768 new molecules). The AUC of a run
   stopped early holds its last top-10 flat to the budget, as PMO's does (``mara_chem/metrics/auc.py``).

Presets (``--sigma``/``--rate`` override them, for tuning):

- ``pmo``: PMO's REINVENT (mol_opt ``main/reinvent/hparams_default.yaml`` and ``run.py``): σ 500, rate 5e-4,
  batch 64, replay memory 100 with 24 replayed a step (SMILES as stored, not randomised), no diversity filter.
  Not available in REINVENT 4: PMO's extra likelihood penalty (``loss += 5e3 · mean(1 / log p)``) and its
  removal of repeated token sequences from a batch.
- ``reinvent``: REINVENT 4.8's own example (``configs/staged_learning.toml``) and defaults: σ 128, rate 1e-4,
  batch 64, ``IdenticalMurckoScaffold`` filter (bucket 25, minscore 0.4), no replay memory.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import os
import signal
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

from benchlab.paths import child_pythonpath
from benchlab.peers.peer_run import (PeerError, PeerRecord, add_common_args, prepare_run_dir, report, resolve_task,
                                    scorer_for)

PRESETS: dict[str, dict[str, Any]] = {
    "pmo": {"batch_size": 64, "sigma": 500, "rate": 5e-4, "randomize_smiles": False,
            "inception": {"memory_size": 100, "sample_size": 24}, "diversity_filter": None},
    "reinvent": {"batch_size": 64, "sigma": 128, "rate": 1e-4, "randomize_smiles": True, "inception": None,
                 "diversity_filter": {"type": "IdenticalMurckoScaffold", "bucket_size": 25, "minscore": 0.4}},
}
SUMMARY_PREFIX = "reinvent_summary"
RUN_REINVENT = "benchlab.peers.run_reinvent"  # the child: REINVENT's own command line (python -m)
#: what a REINVENT peer run writes besides the oracle log and the record (replaced by --overwrite)
OUTPUTS = (f"{SUMMARY_PREFIX}_1.csv", "reinvent.log", "reinvent_run.toml", "peer_run_mara.toml", "prior.reinvent",
           "prior_end_after_end.prior", "reinvent_agent.chkpt")


def reinvent_run_file(task, prior: Path, out: Path, settings: dict[str, Any], seed: int, max_steps: int) -> dict:
    """The peer's run as a mara-chem run file (REINVENT keys only but the scoring, which export maps)."""
    run: dict[str, Any] = {
        "run_type": "staged_learning", "device": "cpu", "seed": seed,
        "parameters": {"prior_file": str(prior), "agent_file": str(prior),
                       "summary_csv_prefix": str(out / SUMMARY_PREFIX), "batch_size": settings["batch_size"],
                       "randomize_smiles": settings["randomize_smiles"]},
        "learning_strategy": {"type": "dap", "sigma": settings["sigma"], "rate": settings["rate"]},
        # the budget ends the run: max_score 1.0 after max_steps steps never stops it first
        "stage": [{"max_steps": max_steps, "max_score": 1.0, "min_steps": max_steps,
                   "chkpt_file": str(out / "reinvent_agent.chkpt"), "scoring": task.scoring}],
    }
    for section in ("inception", "diversity_filter"):
        if settings[section]:
            run[section] = dict(settings[section])
    return run


def write_reinvent_run_file(task, prior: Path, out: Path, settings: dict[str, Any], seed: int,
                            max_steps: int) -> tuple[Path, list[str]]:
    """Validate the run with mara-chem, export it for REINVENT; (REINVENT run file, export's changes)."""
    from mara_chem.reinvent.export import export_run_file, to_toml
    from mara_chem.rl.config import ConfigError

    source = out / "peer_run_mara.toml"
    source.write_text(to_toml(reinvent_run_file(task, prior, out, settings, seed, max_steps)))
    target = out / "reinvent_run.toml"
    try:
        changes = export_run_file(source, target)
    except ConfigError as exc:
        raise PeerError(f"the peer's run file is refused: {exc}") from None
    return target, [c for c in changes if not c.startswith("note parameters.")]


def convert_prior(prior: str, out: Path, seed: int = 0) -> tuple[Path, float]:
    """The prior for REINVENT: ``$`` after ``$`` made near-certain, then ``mara-chem prior convert --to reinvent``.

    REINVENT's likelihood sums over the padding after the end token (``$``), which a prior trained elsewhere
    never learnt: measured on the bundled prior, REINVENT's prior NLL of a SMILES was 65.6 nats where the prior's
    own is 15.5, so REINVENT's DAP target would be off by a length-dependent amount. As in
    ``mara_chem.models.reinvent_prior.teach_end_after_end``, only the input embedding of ``$`` is fitted
    (on 64 of the prior's own samples) so that ``$`` follows ``$``: ``$`` is never an input before the end, so
    every SMILES keeps its likelihood. Not exact: on 64 MOSES SMILES in one batch REINVENT's NLL is within
    0.5 nats of the prior's own for at least 90 % of the rows (mean gap about 0.2 nats; a few end states still pay
    several nats of padding), against a mean gap above 5 nats for the plain conversion
    (``benchmarks/tests/test_peers_reinvent.py``). Returns (REINVENT prior file, mean log p($ | $) over 12 steps)."""
    import torch

    from mara_chem.cli import main as mara_chem
    from mara_chem.models.prior_file import load_prior, resolve_prior_path, save_prior
    from mara_chem.models.reinvent_prior import teach_end_after_end

    try:
        model = load_prior(resolve_prior_path(prior))
    except Exception as exc:
        raise PeerError(f"--prior {prior}: {exc}") from None
    with torch.no_grad():
        sampled = model.sample(64, generator=torch.Generator().manual_seed(seed))
    samples = [s for s in sampled.smiles if s and not model.vocabulary.unknown_tokens(s)]
    end_logp = teach_end_after_end(model, samples)
    fitted = save_prior(model, out / "prior_end_after_end.prior")
    target = out / "prior.reinvent"
    if mara_chem(["prior", "convert", str(fitted), "--to", "reinvent", "--out", str(target), "-q"]) != 0:
        raise PeerError(f"--prior {prior}: mara-chem prior convert failed (message above)")
    return target, end_logp


class SummaryReader:
    """Complete rows of a growing REINVENT summary CSV, read incrementally."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.header: list[str] | None = None

    def new_rows(self) -> list[dict[str, str]]:
        if not self.path.exists():
            return []
        with open(self.path, newline="") as handle:
            handle.seek(self.offset)
            text = handle.read()
        complete = text[: text.rfind("\n") + 1]
        self.offset += len(complete.encode())
        records = list(csv.reader(io.StringIO(complete)))
        if self.header is None and records:
            self.header, records = records[0], records[1:]
        return [dict(zip(self.header, r)) for r in records if self.header and len(r) == len(self.header)]


class FirstOccurrences:
    """PMO's count: valid canonical SMILES at their first occurrence, in REINVENT's order."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.calls: list[tuple[str, dict[str, str]]] = []

    def add(self, rows: list[dict[str, str]]) -> None:
        from mara_chem.chem.smiles import canonicalize

        for row in rows:
            if row.get("SMILES_state") == "0":  # REINVENT's invalid
                continue
            smiles = canonicalize(row["SMILES"]) if row["SMILES"] else None
            if smiles is None or smiles in self.seen:
                continue
            self.seen.add(smiles)
            self.calls.append((smiles, row))


def _number(text: str | None) -> float:
    try:
        value = float(text) if text not in (None, "") else math.nan
    except ValueError:
        return math.nan
    return value


def single_endpoint(task) -> str:
    """The task's one endpoint (every PMO task has one, of weight 1: the task's score is its value); a task with
    several is refused, since REINVENT's total is taken after its diversity filter and is no oracle score."""
    scorer = scorer_for(task)
    names = scorer.endpoint_names
    scorer.close()
    if len(names) != 1:
        raise PeerError(f"task {task.name!r} has {len(names)} endpoints ({', '.join(names)}); the REINVENT peer "
                        "runs single-endpoint tasks (every PMO task)")
    return names[0]


def write_oracle_log(task, calls: list[tuple[str, dict[str, str]]], out: Path, budget: int) -> int:
    """REINVENT's first occurrences as mara-chem's oracle log (mara-chem's writer); returns the calls written.

    ``score``: the task's one endpoint as REINVENT wrote it (before its diversity filter). A score REINVENT could
    not compute is NaN (a spent, failed call)."""
    from mara_chem.run_folder.oracle_log import RecordedCall
    from mara_chem.run_folder.oracle_log import write_oracle_log as write_log

    name = single_endpoint(task)
    recorded = []
    for smiles, row in calls[:budget]:
        if name not in row:
            raise PeerError(f"REINVENT's summary lacks the endpoint column {name!r}; it has {list(row)}")
        score = _number(row[name])
        recorded.append(RecordedCall(smiles, score, int(row["step"]), scores={name: score},
                                     raw={name: _number(row.get(f"{name} (raw)"))},
                                     reason=None if math.isfinite(score) else "REINVENT: no score"))
    return write_log(out, [name], recorded)


class TopPatience:
    """PMO's convergence stop (mol_opt ``main/reinvent/run.py``): once more than 100 molecules are scored, a step
    after which the 100 best scores are exactly those of the step before counts one, a step that changes them
    resets the count; at ``patience`` the run is over. Steps are read from the summary's ``step`` column; a step
    counts once a later step's rows have appeared (so a step is never judged half-read)."""

    def __init__(self, patience: int, endpoint: str, top: int = 100) -> None:
        self.patience, self.endpoint, self.top = patience, endpoint, top
        self.best: list[float] = []  # a min-heap of the best ``top`` scores of the steps judged
        self.judged_calls = 0  # counted calls of the steps judged
        self.step = 0  # the last step judged (REINVENT counts steps from 1)
        self.unchanged = 0
        self.previous: list[float] | None = None

    def exhausted(self, counted: FirstOccurrences, latest_step: int) -> bool:
        """Judge every step before ``latest_step`` not judged yet; True once ``patience`` steps in a row left the
        top ``top`` unchanged (never when ``patience`` is 0)."""
        import heapq

        if self.patience <= 0:
            return False
        calls = counted.calls
        for step in range(self.step + 1, latest_step):
            while self.judged_calls < len(calls) and int(calls[self.judged_calls][1]["step"]) <= step:
                score = _number(calls[self.judged_calls][1].get(self.endpoint))
                if math.isfinite(score):
                    (heapq.heappush if len(self.best) < self.top else heapq.heappushpop)(self.best, score)
                self.judged_calls += 1
            self.step = step
            now = sorted(self.best)
            if self.judged_calls > self.top:
                self.unchanged = self.unchanged + 1 if now == self.previous else 0
            self.previous = now
        return self.unchanged >= self.patience


STOP_ACKNOWLEDGED = "saving checkpoint and then terminate"  # REINVENT's Handler, once it has the signal


def stop_on_budget(child: subprocess.Popen, reader: SummaryReader, counted: FirstOccurrences, budget: int,
                   console: Path, poll_s: float, patience: TopPatience | None = None,
                   grace_s: float = 300.0) -> str | None:
    """Follow the summary CSV until REINVENT exits; once ``budget`` molecules are counted or ``patience`` is
    exhausted, ask it to stop with SIGUSR1 (REINVENT's controlled stop), again at every poll until its log
    acknowledges it: REINVENT's sampler validates SMILES inside ``except Exception``, which swallows the stop when
    the signal lands there. Returns None (REINVENT ran to its end), "asked", "patience" (asked, on PMO's
    convergence stop) or "killed" (after ``grace_s`` of asking)."""
    asked_since, converged, latest = None, False, 0  # latest: the highest step seen in the summary
    while child.poll() is None:
        time.sleep(poll_s)
        rows = reader.new_rows()
        counted.add(rows)
        latest = max([latest, *(int(r["step"]) for r in rows)])
        converged = converged or (patience is not None and patience.exhausted(counted, latest))
        if (len(counted.calls) < budget and not converged) \
                or STOP_ACKNOWLEDGED in console.read_text(errors="replace"):
            continue
        asked_since = asked_since or time.perf_counter()
        if time.perf_counter() - asked_since > grace_s:
            child.kill()
            child.wait()
            return "killed"
        child.send_signal(signal.SIGUSR1)
    if asked_since is None:
        return None
    return "patience" if converged and len(counted.calls) < budget else "asked"


def run_reinvent(task_name: str, out: Path, budget: int, seed: int, preset: str, prior: str,
                 sigma: float | None = None, rate: float | None = None, max_steps: int | None = None,
                 overwrite: bool = False, poll_s: float = 0.5, patience: int = 5) -> PeerRecord:
    """One REINVENT 4.8 run on a task until ``budget`` unique valid molecules; returns its record."""
    if preset not in PRESETS:
        raise PeerError(f"--preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    settings = {**PRESETS[preset], **({"sigma": sigma} if sigma is not None else {}),
                **({"rate": rate} if rate is not None else {})}
    if not settings["rate"] > 0 or not settings["sigma"] > 0:
        raise PeerError(f"--sigma and --rate must be positive, got {settings['sigma']} and {settings['rate']}")
    if budget < 1:
        raise PeerError(f"--budget must be at least 1 oracle call, got {budget}")
    if patience < 0:
        raise PeerError(f"--patience must be 0 (off) or a number of steps, got {patience}")
    out = Path(out).absolute()  # REINVENT runs inside the folder: a relative path would be taken twice
    task = resolve_task(task_name)
    endpoint = single_endpoint(task)  # refused before anything is written
    steps = max_steps or budget  # at least one new molecule a step; the budget normally stops REINVENT first
    lock = prepare_run_dir(out, overwrite, OUTPUTS)  # noqa: F841 (held until the process ends)
    reinvent_prior, end_logp = convert_prior(prior, out)
    run_file, changes = write_reinvent_run_file(task, reinvent_prior, out, settings, seed, steps)
    reader, counted = SummaryReader(out / f"{SUMMARY_PREFIX}_1.csv"), FirstOccurrences()
    start = time.perf_counter()
    with open(out / "reinvent.log", "w") as console:
        child = subprocess.Popen([sys.executable, "-m", RUN_REINVENT, str(run_file), "--log-level", "info"],
                                 stdout=console, stderr=subprocess.STDOUT, cwd=out,
                                 env={**os.environ, "PYTHONPATH": child_pythonpath(),
                                      "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")})
        stop = stop_on_budget(child, reader, counted, budget, out / "reinvent.log", poll_s,
                              TopPatience(patience, endpoint))
    counted.add(reader.new_rows())
    wall = time.perf_counter() - start
    # a signal sent just as REINVENT restored its default handlers ends it by SIGUSR1: the CSV is complete then
    if child.returncode not in (0, -signal.SIGUSR1 if stop else 0) and stop != "killed":
        raise PeerError(f"REINVENT exited with status {child.returncode}; see {out / 'reinvent.log'}")
    calls = write_oracle_log(task, counted.calls, out, budget)
    if calls >= budget:
        reason = "oracle budget" + (" (REINVENT killed: it ignored SIGUSR1)" if stop == "killed" else "")
    elif stop == "patience":
        reason = f"patience: the top 100 unchanged for {patience} steps (PMO's convergence stop)"
    else:
        reason = "max_steps"
    record = PeerRecord(
        peer=f"reinvent_{preset}", version=f"REINVENT {version('reinvent')}", task=task.name,
        task_sha256=task.sha256, budget=budget, seed=seed,
        settings={"preset": preset, **settings, "max_steps": steps, "patience": patience, "prior": str(prior),
                  "prior_end_after_end_logp": end_logp, "export_changes": changes}, oracle_calls=calls, wall_s=wall, stop_reason=reason)
    record.write(out)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    parser.add_argument("--preset", choices=sorted(PRESETS), default="pmo")
    parser.add_argument("--prior", default="moses-gru-2x256", help="a mara-chem prior file or a bundled prior's name")
    parser.add_argument("--sigma", type=float, default=None, help="DAP σ (default: the preset's)")
    parser.add_argument("--rate", type=float, default=None, help="Adam learning rate (default: the preset's)")
    parser.add_argument("--max-steps", type=int, default=None, help="a cap on REINVENT's steps (default: the budget)")
    parser.add_argument("--patience", type=int, default=5,
                        help="PMO's convergence stop: end after this many steps in a row leave the top 100 "
                             "unchanged (default 5, PMO's; 0: off)")
    args = parser.parse_args(argv)
    try:
        import reinvent  # noqa: F401
    except ImportError as exc:
        print(f"error: REINVENT 4 is not importable ({exc}); scripts/setup_venv.sh test installs it from "
              "../shared/vendor/REINVENT4-4.8.tar.gz", file=sys.stderr)
        return 2
    try:
        record = run_reinvent(args.task, args.out, args.budget, args.seed, args.preset, args.prior,
                              args.sigma, args.rate, args.max_steps, args.overwrite, patience=args.patience)
    except PeerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report(f"REINVENT ({args.preset})", record, args.out, resolve_task(args.task), args.budget)
    return 0


if __name__ == "__main__":
    sys.exit(main())
