"""Where a lab run's step time goes: exclusive CPU milliseconds per step for each phase, one torch thread.

    python benchmarks/step_phases.py --variant dap --budget 2000
    PYTHONPATH=/path/to/other/tree python benchmarks/step_phases.py ...   # the same for another mara_chem

The run file is the lab's (``benchlab.jobs.run_config``: batch 64, IdenticalMurckoScaffold filter, replay
memory 100/10, checkpoint every 10 steps). Each phase is a function of the loop wrapped with a CPU timer; a
phase's time leaves out the phases nested in it (the GRU steps are not counted in "sampling: python ..."), so
the rows add up to the run's CPU time. The wrappers cost a few microseconds per call; compare two trees with
this script, not with ``speed_compare.py``'s figures. Phases a tree does not have are left out.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch

from benchlab.jobs import Job, run_config
from benchlab.paths import DEFAULT_PRIOR
from benchlab.phases import PhaseClock
from benchlab.tasks import resolve_tasks
from benchlab.variants import load_variants

import mara_chem.chem.smiles as chem_smiles
import mara_chem.models.language_model as language_model
import mara_chem.models.networks as networks
import mara_chem.rl.agent_update as agent_update
import mara_chem.rl.diversity_filters as diversity_filters
import mara_chem.rl.loop as loop
import mara_chem.rl.oracle as oracle
import mara_chem.rl.outcomes as outcomes
import mara_chem.rl.replay as replay
import mara_chem.rl.hits as hits
import mara_chem.rl.summary_csv as summary_csv
import mara_chem.run_folder.oracle_log as oracle_log
import mara_chem.scoring.component as component
import mara_chem.scoring.components.physchem as physchem
import mara_chem.scoring.components.similarity as similarity
import mara_chem.scoring.scorer as scorer
from mara_chem.rl.config import load_run_config

CLOCK = PhaseClock(time.process_time)
SECONDS = CLOCK.totals
timed = CLOCK.wrap


def instrument() -> None:
    timed(loop.StagedLearning, "_step", "loop bookkeeping (arrays, hits, records)")
    timed(language_model.LanguageModel, "sample", "sampling: python loop, multinomial, decode")
    timed(networks.RecurrentNetwork, "step", "sampling: GRU steps (forward, recorded for autograd)")
    CLOCK.wrap_everywhere(chem_smiles.canonicalize, "canonicalisation (RDKit)", "mara_chem")
    timed(oracle.Oracle, "score", "scoring: cache, budget, log rows")
    timed(oracle_log.OracleLog, "append", "oracle-log write")
    timed(physchem.DescriptorComponent, "score_mol", "scoring: QED")
    timed(similarity.TanimotoSimilarity, "score_mol", "scoring: Tanimoto (fingerprints)")
    for module in (component, scorer):  # the scorer's own parsing, and the copies of the shared parse
        timed(module, "to_mol", "scoring: parse (and copy) molecules")
        timed(module, "copy_mol", "scoring: parse (and copy) molecules")
    if hasattr(chem_smiles, "ParsedMolecules"):
        timed(chem_smiles.ParsedMolecules, "__missing__", "scoring: parse (and copy) molecules")
    for module in (loop, diversity_filters, outcomes):
        timed(module, "murcko_scaffold", "scaffolds (RDKit)")
    timed(diversity_filters.DiversityFilter, "apply", "diversity filter")
    timed(outcomes.OutcomeTracker, "step", "outcome ids and frequencies")
    timed(language_model.LanguageModel, "sequence_log_likelihood",
          lambda: "agent likelihood of the replay rows" if torch.is_grad_enabled() else "prior likelihood")
    timed(torch.Tensor, "backward", "backward")
    timed(torch.optim.Adam, "step", "optimiser (Adam)")
    timed(loop.StagedLearning, "_checkpoint", "checkpoint writes")
    timed(summary_csv.SummaryCsv, "append_step", "summary CSV")
    for name in ("sample", "add"):
        timed(replay.ReplayMemory, name, "replay memory (sample, randomise, add, encode)")
    timed(agent_update.AgentUpdate, "_encode", "replay memory (sample, randomise, add, encode)")
    timed(hits.HitTracker, "update", "loop bookkeeping (arrays, hits, records)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default="dap")
    parser.add_argument("--task", default="ref_neighbourhoods")
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    instrument()
    prior = str(DEFAULT_PRIOR)
    task = resolve_tasks([args.task])[0]
    with tempfile.TemporaryDirectory() as tmp:
        job = Job(task, load_variants()[args.variant], args.seed, args.budget, prior, Path(tmp))
        runner = loop.StagedLearning(load_run_config(run_config(job)), overwrite=True, quiet=True)
        timed(type(runner.strategy), "forward", "loss (strategy)")
        start = time.process_time()
        result = runner.run()
        total = time.process_time() - start
    SECONDS["outside the steps (stage start and end, agent file)"] = total - sum(SECONDS.values())
    print(f"{args.task}, variant {args.variant}, {args.budget} oracle calls, {loop.__file__}: {result.steps} steps, "
          f"{total:.2f} CPU s, {total / result.steps * 1000:.1f} ms/step")
    print("| phase | CPU ms/step | share |")
    print("|---|---|---|")
    for key, seconds in sorted(SECONDS.items(), key=lambda kv: -kv[1]):
        print(f"| {key} | {seconds / result.steps * 1000:.1f} | {seconds / total:.1%} |")
    if CLOCK.missing:
        print(f"not in this tree (left out): {', '.join(CLOCK.missing)}")


if __name__ == "__main__":
    main()
