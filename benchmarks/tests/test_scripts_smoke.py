"""Every benchmark script runs end to end on tiny inputs, as a user runs it (``python benchmarks/<script>``, a
child process): a script whose imports, options or outputs drift from the package fails here, not in a grid.
Each checks what the script writes or prints, not only that it exits 0. Scripts over ~20 s are marked slow."""

from __future__ import annotations

import csv
import json
import re
import subprocess
from pathlib import Path

import pytest

from benchlab.paths import DEFAULT_PRIOR, MOSES_SAMPLE, TASK_DIR

needs_prior = pytest.mark.skipif(not DEFAULT_PRIOR.exists(), reason=f"the bundled prior {DEFAULT_PRIOR} is not there")


def test_run_benchmark(run_script, tmp_path: Path) -> None:
    run_script("run_benchmark.py", "--tasks", "ref_neighbourhoods", "--variants", "dap", "--seeds", "0",
               "--budget", "16", "--max-steps", "1", "--workers", "1", "--runs", str(tmp_path / "runs"),
               "--out", str(tmp_path / "out"), "--ob-n", "2")
    rows = list(csv.DictReader((tmp_path / "out" / "runs.csv").open()))
    assert [(r["task"], r["strategy"]) for r in rows] == [("ref_neighbourhoods", "dap")]
    assert 0 < int(rows[0]["oracle_calls"]) <= 16


def test_the_entry_point_is_the_runner(tmp_path: Path) -> None:
    """``mara-chem-bench`` is ``benchlab.cli:main``: a bad variant is its one-line error, before any run."""
    from benchlab.cli import main

    with pytest.raises(SystemExit, match="unknown variant"):
        main(["--variants", "nope", "--out", str(tmp_path)])


def test_peer_entry_point_refuses_an_unknown_peer(capsys) -> None:
    from benchlab.peers.cli import main

    assert main(["nope", "--task", "qed"]) == 2
    assert "'nope' is not one" in capsys.readouterr().err


def test_calibrate_pmo(run_script, tmp_path: Path) -> None:
    pytest.importorskip("guacamol", reason="the PMO objectives need guacamol (scripts/setup_venv.sh test)")
    run_script("calibrate_pmo.py", "--n", "40", "--objectives", "qed", "--out", str(tmp_path))
    info = json.loads((tmp_path / "calibration.json").read_text())
    assert info["n"] == 40 and [o["objective"] for o in info["objectives"]] == ["qed"]
    (cal,) = [o["calibration"] for o in info["objectives"]]
    assert 0 < cal["lenient"] < cal["strict"] <= 1
    assert "thresholds = " in (tmp_path / "qed.toml").read_text()


def test_pmo_table(run_script, tmp_path: Path) -> None:
    from mara_chem.run_folder.oracle_log import RecordedCall, write_oracle_log

    run = tmp_path / "runs" / "qed" / "v" / "seed0"
    run.mkdir(parents=True)
    scores = [0.2, 0.5, 0.96, 0.3]
    write_oracle_log(run, ["qed"], [RecordedCall(s, v, 1, scores={"qed": v}, raw={"qed": v})
                                    for s, v in zip(["CCO", "CCN", "c1ccccc1O", "CCC"], scores)])
    (run / "peer_run.json").write_text('{"wall_s": 2.0}')
    run_script("pmo_table.py", "--tasks", "pmo/qed", "--budget", "4", "--method", f"A={tmp_path / 'runs'}:v",
               "--out", str(tmp_path / "out"))
    text = (tmp_path / "out" / "pmo_table.md").read_text()
    assert "| A |" in text
    assert json.loads((tmp_path / "out" / "pmo_runs.json").read_text())["A"]["qed"]["0"]["yield"] == 1.0


def test_hypergrid(run_script, tmp_path: Path) -> None:
    run_script("hypergrid.py", "--seeds", "0", "--steps", "3", "--grids", "2x4", "--methods", "grpo", "ips_grpo",
               "--out", str(tmp_path))
    result = json.loads((tmp_path / "hypergrid.json").read_text())
    assert {r["method"] for r in result["runs"]} == {"grpo", "ips_grpo"}
    assert all(r["l1_sum"] >= 0 for r in result["runs"])


def test_network_cost(run_script) -> None:
    out = run_script("network_cost.py", "--batch", "2", "--tokens", "4", "--repeats", "1").stdout
    assert out.splitlines()[0].startswith("layers x hidden") and len(out.splitlines()) > 2


@needs_prior
def test_sampling_throughput(run_script) -> None:
    out = run_script("sampling_throughput.py", "--prior", str(DEFAULT_PRIOR), "--batch-sizes", "8",
                     "--repeats", "1").stdout
    (row,) = [line for line in out.splitlines() if line.startswith("| 8 |")]
    assert 0 <= float(row.split("|")[3]) <= 1  # the valid fraction


@needs_prior
def test_step_time(run_script) -> None:
    out = run_script("step_time.py", "--prior", str(DEFAULT_PRIOR), "--batch-sizes", "8", "--steps", "2",
                     "--strategies", "dap").stdout
    (row,) = [line for line in out.splitlines() if line.startswith("| dap |")]
    assert float(row.split("|")[2]) > 0


@needs_prior
def test_step_phases(run_script) -> None:
    out = run_script("step_phases.py", "--budget", "24").stdout
    assert "ms/step" in out
    for phase in ("sampling: python loop, multinomial, decode", "canonicalisation (RDKit)",
                  "scoring: cache, budget, log rows", "backward", "optimiser (Adam)"):
        assert f"| {phase} |" in out, phase  # the main phases are found in this tree


@needs_prior
def test_prior_reachability(run_script, tmp_path: Path) -> None:
    """On a tiny prior trained here on the committed MOSES sample (the script rebuilds the prior's split)."""
    from mara_chem.cli import main as mara_chem

    prior = tmp_path / "tiny.prior"
    assert mara_chem(["prior", "train", "--smiles", str(MOSES_SAMPLE), "--out", str(prior), "--cell", "gru",
                      "--layers", "1", "--hidden", "16", "--embedding", "8", "--epochs", "1", "-q"]) == 0
    run_script("prior_reachability.py", "--prior", str(prior), "--smiles", str(MOSES_SAMPLE),
               "--out", str(tmp_path / "reach.md"))
    text = (tmp_path / "reach.md").read_text()
    assert "| reference | NLL | percentile among held-out | note |" in text and "celecoxib" in text.lower()


def test_protonation_validation(run_script, tmp_path: Path) -> None:
    run_script("protonation/run_validation.py", "--set", "holdout", "--out", str(tmp_path))
    rows = list(csv.DictReader((tmp_path / "results_holdout.csv").open()))
    assert rows and "pka_rules" in rows[0]


def test_retro_validation(run_script, tmp_path: Path) -> None:
    pytest.importorskip("syntheseus", reason="retrosynthesis needs the retro extra")
    molecules = tmp_path / "molecules.csv"
    molecules.write_text("group,name,smiles,last_step,source\n"
                         "amide_drug,paracetamol,CC(=O)Nc1ccc(O)cc1,acetylation of 4-aminophenol,textbook\n")
    blocks = tmp_path / "blocks.csv"
    blocks.write_text("smiles\nNc1ccc(O)cc1\nCC(=O)O\n")
    run_script("retro_validation/run_validation.py", "--molecules", str(molecules), "--building-blocks", str(blocks),
               "--max-iterations", "5", "--variants", "amide_only", "--confirmations", "exact", "--out", str(tmp_path))
    rows = list(csv.DictReader((tmp_path / "results.csv").open()))
    assert [r["name"] for r in rows] == ["paracetamol"]


def test_template_coverage(run_script) -> None:
    """On two molecules of each set: every template rdchiral initialises also runs (the maps numbered from 0 once
    made a fifth of them raise), and most of the 527 initialise."""
    pytest.importorskip("rdchiral", reason="retrosynthesis needs the retro extra")
    out = run_script("retro_validation/template_coverage.py", "--per-set", "2").stdout
    found = re.search(r"(\d+) molecules, (\d+) templates: (\d+) initialise in rdchiral, (\d+) run on every molecule "
                      r"without an exception, (\d+) propose", out)
    assert found, out
    molecules, templates, initialised, clean, proposing = map(int, found.groups())
    assert molecules == 8 and templates > 500 and initialised > 500
    assert clean == initialised and 0 < proposing < initialised


def test_retro_step_replay_matches_the_committed_verdicts(run_script, tmp_path: Path) -> None:
    """The committed step_verdicts.csv is what today's checks say of every recorded step."""
    pytest.importorskip("syntheseus", reason="retrosynthesis needs the retro extra")
    from benchlab.paths import BENCHMARKS

    run_script("retro_validation/replay_steps.py", "--out", str(tmp_path / "verdicts.csv"))
    committed = list(csv.DictReader((BENCHMARKS / "retro_validation" / "step_verdicts.csv").open()))
    replayed = list(csv.DictReader((tmp_path / "verdicts.csv").open()))
    assert len(replayed) > 400 and {r["verdict"] for r in replayed} >= {"accepted", "refused"}
    assert replayed == committed


def test_vina_map_memory(run_script) -> None:
    pytest.importorskip("vina", reason="docking needs the docking extra")
    pytest.importorskip("dockstring", reason="the DRD2 target comes from dockstring")
    out = run_script("vina_map_memory.py", "4", "6").stdout
    assert "bytes per grid point" in out


@pytest.mark.slow
def test_docking_throughput(run_script, tmp_path: Path) -> None:
    pytest.importorskip("vina", reason="docking needs the docking extra")
    pytest.importorskip("dockstring", reason="the DRD2 target comes from dockstring")
    run_script("docking_throughput.py", "--target", "DRD2", "--ligands", "2", "--workers", "1",
               "--exhaustiveness", "1", "--json", str(tmp_path / "t.json"))
    assert json.loads((tmp_path / "t.json").read_text())


@pytest.mark.slow
def test_docking_poses(run_script, tmp_path: Path) -> None:
    pytest.importorskip("vina", reason="docking needs the docking extra")
    pytest.importorskip("dockstring", reason="the DRD2 target comes from dockstring")
    run_script("docking_poses/measure.py", "--limit", "1", "--exhaustiveness", "1", "--out", str(tmp_path))
    assert (tmp_path / "results.csv").exists()


@pytest.mark.slow
@needs_prior
def test_speed_compare(run_script) -> None:
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=TASK_DIR, capture_output=True).returncode:
        pytest.skip("speed_compare.py compares against a git ref: needs a git checkout")
    out = run_script("speed_compare.py", "--baseline", "HEAD", "--budget", "24").stdout
    assert "s/step" in out


@pytest.mark.slow
@needs_prior
def test_reinvent_side_by_side(run_script, reinvent_rl) -> None:
    out = run_script("reinvent_side_by_side.py", "--steps", "2", "--batch-size", "8", "--threads", "1").stdout
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| REINVENT") or
            line.startswith("| mara-chem")}
    assert set(rows) == {"REINVENT 4.8", "mara-chem"}
    assert "mara-chem step / REINVENT step = " in out and "not in this tree" not in out


@pytest.mark.slow
def test_reproduce_synth(run_script, tmp_path: Path) -> None:
    """The SYNTH / ALL-AMIDE grid at smoke size (no docking): runs, metrics and tables."""
    pytest.importorskip("syntheseus", reason="retrosynthesis needs the retro extra")
    out, runs = tmp_path / "out", tmp_path / "runs"
    proc = run_script("reproduce_synth.py", "--smoke", "--runs", str(runs), "--out", str(out), timeout=1800)
    assert "expected full-scale cost" in proc.stdout and "core-hours" in proc.stdout
    results = (tmp_path / "out_smoke" / "results.md").read_text()
    assert "SYNTH" in results and "ALL-AMIDE" in results
    for protocol in ("SYNTH", "ALL-AMIDE"):
        for strategy in ("dap", "mara"):
            assert (runs.with_name("runs_smoke") / protocol / strategy / "seed0" / "oracle_log.csv").is_file()


def test_mol_ga_peer_script(run_script, tmp_path: Path) -> None:
    pytest.importorskip("mol_ga", reason="the Mol GA peer needs mol-ga==0.2.1 (extra 'peers')")
    pytest.importorskip("guacamol", reason="the PMO tasks score with guacamol")
    run_script("peers/mol_ga_peer.py", "--task", "qed", "--budget", "20", "--out", str(tmp_path / "run"),
               "--starting-population-size", "10", "--population-size", "10", "--offspring-size", "5")
    record = json.loads((tmp_path / "run" / "peer_run.json").read_text())
    assert record["oracle_calls"] == 20 and record["peer"] == "mol_ga"


@pytest.mark.slow
def test_reinvent_peer_script(run_script, reinvent_rl, tmp_path: Path) -> None:
    pytest.importorskip("guacamol", reason="the PMO tasks score with guacamol")
    run_script("peers/reinvent_peer.py", "--task", "qed", "--budget", "40", "--out", str(tmp_path / "run"))
    record = json.loads((tmp_path / "run" / "peer_run.json").read_text())
    assert record["oracle_calls"] == 40 and record["stop_reason"] == "oracle budget"


def test_no_script_is_left_without_a_smoke_test() -> None:
    """A new script under benchmarks/ gets its test here (the package modules are tested on their own)."""
    from benchlab.paths import BENCHMARKS

    here = Path(__file__).read_text()
    scripts = [p.relative_to(BENCHMARKS).as_posix() for p in BENCHMARKS.rglob("*.py")
               if p.parts[len(BENCHMARKS.parts)] not in ("benchlab", "tests", "results")]
    assert scripts and not [s for s in scripts if f'"{s}"' not in here], "a script without a smoke test"


def test_no_script_puts_a_folder_on_sys_path() -> None:
    """The lab reaches mara-chem and itself through installed packages only."""
    from benchlab.paths import BENCHMARKS

    offenders = [p for p in BENCHMARKS.rglob("*.py") if "sys.path.insert" in p.read_text() and p.name != Path(__file__).name]
    assert not offenders, offenders


@pytest.mark.slow  # three short runs, about a minute on a loaded 2-core machine
def test_genetic_cost(run_script) -> None:
    out = run_script("genetic_cost.py", "--budget", "80").stdout.splitlines()
    assert len(out) == 3 and all("80 calls" in line and "s CPU per 1,000 calls" in line for line in out)


@pytest.mark.slow  # docks 2 actives and 2 decoys
def test_drd2_enrichment(run_script, tmp_path: Path) -> None:
    pytest.importorskip("vina", reason="docking needs the docking extra")
    pytest.importorskip("dockstring", reason="the DRD2 target comes from dockstring")
    from benchlab.paths import BENCHMARKS

    rows = (BENCHMARKS / "docking_poses" / "drd2_ligands.csv").read_text().splitlines()
    actives = tmp_path / "actives.csv"
    actives.write_text("\n".join([rows[0], *[r for r in rows[1:] if ",active," in r][:2]]) + "\n")
    pool = BENCHMARKS.parent / "data" / "zinc250k.smi"
    if not pool.exists():
        pytest.skip("data/zinc250k.smi is written by `mara-chem data zinc`")
    run_script("drd2_enrichment/run.py", "--zinc", str(pool), "--actives", str(actives), "--decoys-per-active", "1",
               "--pool", "3000", "--out", str(tmp_path / "out"))
    assert (tmp_path / "out" / "decoys.csv").exists() and (tmp_path / "out" / "summary.md").exists()


def test_engine_parity_counts_stereo_repeats(run_script, tmp_path: Path) -> None:
    """``engine_parity.py --stereo-repeats``: the share of a run's calls spent on stereoisomers of molecules it had
    already scored (the engines' stepping is the slow test of tests/test_engine_parity_script.py)."""
    from mara_chem.run_folder.oracle_log import RecordedCall, write_oracle_log

    smiles = ["C[C@H](N)O", "CCO", "C[C@@H](N)O", "CC(N)O"]
    write_oracle_log(tmp_path, ["s"], [RecordedCall(s, 0.5, n, scores={"s": 0.5}, raw={"s": 0.5})
                                       for n, s in enumerate(smiles, 1)])
    out = run_script("engine_parity.py", "--stereo-repeats", str(tmp_path)).stdout
    assert "4 calls, 2 stereo-free molecules, 2 stereo repeats (50.0%)" in out
