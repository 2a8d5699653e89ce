"""The run modes end to end on the bundled prior: transfer learning on a series -> staged learning from the
tuned model -> the agent as a prior file -> sampling 1,000 from it -> scoring that file; plus resume/refusal
after a kill and the one-line errors for bad input."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from rdkit import Chem
from rdkit.Chem import QED

from mara_chem.cli import main
from mara_chem.models.prior_file import load_prior, read_metadata, weights_digest
from mara_chem.report import write_report
from mara_chem.rl.config import load_run_config
from mara_chem.rl.loop import StagedLearning
from tests.paths import REPO

PRIOR = REPO / "priors" / "moses-gru-2x256.prior"
SERIES = REPO / "configs" / "data" / "pyrazole_amides.smi"
QED_SCORING = """
[[{prefix}component]]
[{prefix}component.QED]
[[{prefix}component.QED.endpoint]]
name = "QED"
weight = 1
[[{prefix}component]]
[{prefix}component.MolecularWeight]
[[{prefix}component.MolecularWeight.endpoint]]
name = "MW"
weight = 1
transform = {{type = "double_sigmoid", low = 200, high = 450, coef_div = 450, coef_si = 20, coef_se = 20}}
"""


def _tl_toml(tmp: Path, out: Path, epochs: int, smiles: Path = SERIES, samples: int = 300) -> Path:
    path = tmp / f"tl_{out.stem}.toml"
    path.write_text(f"""run_type = "transfer_learning"
seed = 0
[parameters]
input_model_file = "{PRIOR}"
smiles_file = "{smiles}"
output_model_file = "{out}"
num_epochs = {epochs}
batch_size = 32
sample_batch_size = {samples}
randomize_smiles = false
[scheduler]
lr = 3e-4
""")
    return path


def _staged_toml(tmp: Path, agent: Path, run: Path, chkpt: Path) -> Path:
    path = tmp / "staged.toml"
    def stage(steps: int, chkpt: str) -> str:
        # max_score = 0 ends a stage after min_steps + 2 = 2 steps and hands over to the next (max_steps ends the run)
        return (f"[[stage]]\nmax_steps = {steps}\nmax_score = 0.0\nmin_steps = 0\nmax_oracle_calls = 40\n{chkpt}\n"
                "[stage.scoring]\n"
                'type = "geometric_mean"\n' + QED_SCORING.format(prefix="stage.scoring."))

    path.write_text(f"""run_type = "staged_learning"
device = "cpu"
seed = 3
[parameters]
prior_file = "{PRIOR}"
agent_file = "{agent}"
summary_csv_prefix = "{run / 'summary'}"
batch_size = 16
hit_threshold = 0.5
[learning_strategy]
type = "mara"
rate = 1e-4
tau = 0.5
""" + stage(10, f'chkpt_file = "{chkpt}"') + stage(1, ""))
    return path


def _sampling_toml(tmp: Path, model: Path, out: Path, n: int = 1000, scored: bool = True) -> Path:
    path = tmp / f"sampling_{out.stem}.toml"
    text = f"""run_type = "sampling"
seed = 0
[parameters]
model_file = "{model}"
num_smiles = {n}
output_file = "{out}"
sdf_file = "{out.with_suffix('.sdf')}"
"""
    if scored:
        text += "[scoring]\n" + QED_SCORING.format(prefix="scoring.")
    path.write_text(text)
    return path


def _scoring_toml(tmp: Path, smiles_file: Path, out: Path, batch: int = 200) -> Path:
    path = tmp / f"scoring_{out.stem}.toml"
    path.write_text(f"""run_type = "scoring"
[parameters]
smiles_file = "{smiles_file}"
output_csv = "{out}"
batch_size = {batch}
[scoring]
""" + QED_SCORING.format(prefix="scoring."))
    return path


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_chain_tl_staged_agent_sampling_scoring(tmp_path, capsys):
    # 1. transfer learning on 200 pyrazole amides (3 more are unspellable)
    tuned = tmp_path / "tl" / "series.prior"
    assert main(["run", str(_tl_toml(tmp_path, tuned, epochs=3))]) == 0
    report = json.loads((tuned.parent / "series.prior.tl.json").read_text())
    assert report["series"] == {"kept": 200, "unspellable": 3, "counts": report["series"]["counts"]}
    assert report["series"]["counts"]["rare_token"] == 3
    before, after = report["input_prior"], report["tuned"]
    # the model moved toward the series: nearest-neighbour similarity of its samples clearly up
    assert after["mean_nn_tanimoto_to_series"] > before["mean_nn_tanimoto_to_series"] + 0.05, report
    assert after["validity"] > 0.5
    meta = read_metadata(tuned)
    assert meta["transfer_learning"]["unspellable_smiles"] == 3 and meta["tl_report"]["tuned"] == after
    assert [h["epoch"] for h in meta["history"]] == [1, 2, 3]
    assert main(["prior", "info", str(tuned)]) == 0

    # 2. staged learning from the TL output; each stage writes its agent as a prior file
    run, chkpt = tmp_path / "rl", tmp_path / "agents" / "stage1.prior"
    assert main(["run", str(_staged_toml(tmp_path, tuned, run, chkpt))]) == 0
    stage2 = run / "agent_stage2.prior"
    for path, stage, step in ((chkpt, 1, 2), (stage2, 2, 3)):
        record = read_metadata(path)["rl_agent"]
        assert (record["stage"], record["step"], record["strategy"]["type"]) == (stage, step, "mara")
        assert record["agent_file"] == str(tuned) and record["run_folder"] == str(run)
    agent = load_prior(stage2)
    assert weights_digest(agent.network.state_dict()) != weights_digest(load_prior(tuned).network.state_dict())
    assert main(["prior", "sample", str(stage2), "-n", "50", "--seed", "0"]) == 0
    # ... and a later run takes it as its agent_file
    later = _staged_toml(tmp_path, stage2, tmp_path / "later", tmp_path / "later.prior")
    runner = StagedLearning(load_run_config(later), quiet=True)
    assert weights_digest(runner.agent.network.state_dict()) == weights_digest(agent.network.state_dict())
    # the report opens with the objective, before the results
    page = write_report(run, threshold=0.5).read_text()
    assert page.index("Objective") < page.index("Metrics")
    for text in ("mara", "tau = 0.5", "double_sigmoid", "MolecularWeight", "budget 40 oracle calls", str(PRIOR)):
        assert text in page, text
    # every hit that is a series member is marked known (the agent's tuning series, read from the model)
    series = {Chem.MolToSmiles(m, isomericSmiles=False) for m in
              (Chem.MolFromSmiles(line.split()[0]) for line in SERIES.read_text().splitlines()[1:]) if m}
    for hit in _rows(run / "hits.csv"):
        in_series = Chem.MolToSmiles(Chem.MolFromSmiles(hit["smiles"]), isomericSmiles=False) in series
        assert (hit["known_in"] == "pyrazole_amides.smi") == in_series, hit

    # 3. sample 1,000 unique valid molecules from the agent, scored
    samples = tmp_path / "samples" / "lib.csv"
    capsys.readouterr()
    assert main(["run", str(_sampling_toml(tmp_path, stage2, samples))]) == 0
    assert "samples/s" in capsys.readouterr().out
    rows = _rows(samples)
    assert len(rows) == 1000 and len({r["SMILES"] for r in rows}) == 1000
    assert all(Chem.MolFromSmiles(r["SMILES"]) is not None for r in rows)
    # NLL is the agent's: recomputed for the molecules it sampled in canonical form (most of them)
    with torch.no_grad():
        nll = (-agent.log_likelihood([r["SMILES"] for r in rows[:200]])).tolist()
    assert sum(abs(float(r["NLL"]) - x) < 1e-3 for r, x in zip(rows, nll)) > 100
    for r in rows[:20]:
        assert float(r["QED_raw"]) == pytest.approx(QED.qed(Chem.MolFromSmiles(r["SMILES"])), abs=1e-5)
    assert len([m for m in Chem.SDMolSupplier(str(samples.with_suffix(".sdf")))]) == 1000
    # the sampling output's report: series members among the samples are marked known
    assert main(["report", str(samples.parent), "--known", str(SERIES)]) == 0
    listed = _rows(samples.parent / "lib_hits.csv")
    known = [r for r in listed if r["known_in"]]
    assert len(listed) == 1000 and known and all(
        Chem.MolToSmiles(Chem.MolFromSmiles(r["smiles"]), isomericSmiles=False) in series for r in known)

    # 4. score that file: same objective, same numbers, every endpoint and raw value
    scores = tmp_path / "scores.csv"
    assert main(["run", str(_scoring_toml(tmp_path, samples, scores))]) == 0
    scored = _rows(scores)
    assert [r["SMILES"] for r in scored] == [r["SMILES"] for r in rows]
    assert [r["score"] for r in scored] == [r["score"] for r in rows]
    assert {"QED", "QED_raw", "MW", "MW_raw", "reason"} <= set(scored[0])


def test_tl_resumes_after_kill(tmp_path, capsys):
    out = tmp_path / "kill.prior"
    cmd = [sys.executable, "-m", "mara_chem.cli", "run", str(_tl_toml(tmp_path, out, epochs=4, samples=100))]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    ckpt = out.with_name(out.name + ".ckpt")
    deadline = time.time() + 240
    while time.time() < deadline and not ckpt.exists() and proc.poll() is None:
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = torch.load(ckpt, weights_only=False)["state"]["epoch"]
    assert 1 <= done_before < 4, "the run should have been killed after its first checkpoint"
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=400)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"resuming from {ckpt}" in again.stderr
    history = read_metadata(out)["history"]
    assert [h["epoch"] for h in history] == list(range(1, len(history) + 1)) and len(history) >= done_before
    assert torch.load(ckpt, weights_only=False)["state"]["epoch"] == 4 or len(history) < 4
    # a checkpoint made from other data is refused, naming the way out
    fewer = tmp_path / "fewer.smi"
    fewer.write_text("\n".join(SERIES.read_text().splitlines()[:120]) + "\n")
    capsys.readouterr()
    assert main(["run", str(_tl_toml(tmp_path, out, epochs=5, smiles=fewer))]) == 2
    err = capsys.readouterr().err
    assert "other data" in err and "--overwrite" in err and "Traceback" not in err


def test_scoring_resumes_after_a_torn_write_and_refuses_other_input(tmp_path, capsys):
    smiles = tmp_path / "in.smi"
    lines = [line for line in SERIES.read_text().splitlines()[1:61]] + ["not_a_smiles", "C1CC"]
    smiles.write_text("\n".join(lines) + "\n")
    full = tmp_path / "full.csv"
    assert main(["run", str(_scoring_toml(tmp_path, smiles, full, batch=10))]) == 0
    expected = full.read_text()
    rows = _rows(full)
    assert len(rows) == 62 and rows[-2]["reason"] == "invalid SMILES" and rows[-2]["score"] == ""
    assert rows[-1]["reason"] == "invalid SMILES"
    # a run killed mid-chunk: 23 complete rows and a torn line
    part = tmp_path / "part.csv"
    part.write_text("".join(expected.splitlines(keepends=True)[:24]) + "24,24,Cc1cc(C(=O)N")
    # ... with the record of what it scored from, which a run writes before its first row
    (tmp_path / "part.csv.run.json").write_bytes((tmp_path / "full.csv.run.json").read_bytes())
    capsys.readouterr()
    assert main(["run", str(_scoring_toml(tmp_path, smiles, part, batch=10))]) == 0
    assert "resuming" in capsys.readouterr().err
    assert part.read_text() == expected
    # another input behind the same output is refused
    other = tmp_path / "other.smi"
    other.write_text("CCO x1\nCCN x2\n")
    assert main(["run", str(_scoring_toml(tmp_path, other, part))]) == 2
    assert "the input file's contents changed" in capsys.readouterr().err


def test_sampling_refuses_to_overwrite_and_leaves_no_partial_file(tmp_path, capsys):
    out = tmp_path / "s.csv"
    toml = _sampling_toml(tmp_path, PRIOR, out, n=50, scored=False)
    assert main(["run", str(toml)]) == 0
    first = out.read_text()
    assert main(["run", str(toml)]) == 2
    assert "exists; use --overwrite" in capsys.readouterr().err and out.read_text() == first
    assert main(["run", str(toml), "--overwrite"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize(("text", "message"), [
    ('run_type = "sampling"\n[parameters]\nmodel_file = "x"\nnum_smile = 3\n', "[parameters.num_smile] unknown key"),
    ('run_type = "sampling"\n[parameters]\nmodel_file = "nope.prior"\nnum_smiles = 3\n',
     "[parameters.model_file] model file 'nope.prior' does not exist"),
    ('run_type = "transfer_learning"\n[parameters]\ninput_model_file = "a"\nsmiles_file = "b"\n'
     'output_model_file = "c"\nnum_epochs = 1\n[scheduler]\nstep = 3\n', "[scheduler.step] unknown key"),
    ('run_type = "scoring"\n[parameters]\nsmiles_file = "in.csv"\nsmiles_column = "smi"\n[scoring]\n'
     + QED_SCORING.format(prefix="scoring."), "has no column 'smi'"),
    ('run_type = "learning"\n', "[run_type] must be one of"),
])
def test_bad_input_is_one_line_naming_the_key(tmp_path, capsys, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.csv").write_text("SMILES,name\nCCO,a\n")
    (tmp_path / "run.toml").write_text(text)
    assert main(["run", "run.toml"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_validate_dispatches_on_run_type_and_checks_the_files_a_run_opens(tmp_path, capsys, monkeypatch):
    """The chain's files validate once the previous step's output exists (as in a fresh checkout)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs").symlink_to(REPO / "configs")
    for name in ("tl_pyrazole_amides", "demo"):
        assert main(["validate", f"configs/{name}.toml"]) == 0
    assert "transfer_learning: fine-tune" in capsys.readouterr().out
    for name, key in (("staged_from_tl", "agent_file"), ("sampling", "model_file"), ("scoring", "smiles_file")):
        assert main(["validate", f"configs/{name}.toml"]) == 2
        assert f"[parameters.{key}]" in capsys.readouterr().err
    for made in ("runs/tl/pyrazole_amides.prior", "runs/tl_rl/agent.prior"):
        (tmp_path / made).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / made).write_bytes(PRIOR.read_bytes())
    (tmp_path / "runs/sampling").mkdir(parents=True)
    (tmp_path / "runs/sampling/samples.csv").write_text("SMILES,NLL\nCCO,20.1\n")
    for name in ("staged_from_tl", "sampling", "scoring"):
        assert main(["validate", f"configs/{name}.toml"]) == 0
    out = capsys.readouterr().out
    assert "strategy mara" in out and "sampling: sample 1000" in out and "scoring: score" in out


def test_report_shows_pose_files_of_top_hits_and_rounds_hits_csv(tmp_path):
    poses = tmp_path / "poses.sdf"
    with Chem.SDWriter(str(poses)) as writer:
        for smi in ("CCO", "CCCl"):
            mol = Chem.AddHs(Chem.MolFromSmiles(smi))
            mol.SetProp("_Name", smi)
            writer.write(mol)
    (tmp_path / "oracle_log.csv").write_text(
        "call,step,stage,smiles,score,dock,dock_raw,reason\n"
        "1,1,1,CCO,0.912345678,0.912345678,-8.123456789,\n2,1,1,CCN,0.85,0.85,-7.5,\n3,2,1,CCCl,0.95,0.95,-9.0,\n")
    record = {"parameters": {"prior_file": "p.prior", "agent_file": "p.prior", "batch_size": 8, "hit_threshold": 0.8},
              "learning_strategy": {"type": "dap", "sigma": 128},
              "stage": [{"max_steps": 5, "max_oracle_calls": 3, "max_score": None, "scoring": {
                  "type": "geometric_mean", "component": [{"vina_docking": {"endpoint": [
                      {"name": "dock", "weight": 1, "params": {"pose_sdf": str(poses)},
                       "transform": {"type": "reverse_sigmoid", "low": -11, "high": -6, "k": 0.5}}]}}]}}]}
    (tmp_path / "run.json").write_text(json.dumps(record))
    page = write_report(tmp_path, threshold=0.8, budget=3).read_text()
    table = page[page.index('<table class="hits">'):page.index("</table>", page.index('<table class="hits">'))]
    assert f"{poses} #1" in table and f"{poses} #2" in table and table.count(f"{poses} #") == 2  # CCN has no pose
    assert "reverse_sigmoid low = -11" in page and "budget 3 oracle calls" in page
    hits = _rows(tmp_path / "hits.csv")
    by_smiles = {r["smiles"]: r for r in hits}
    assert by_smiles["CCO"]["score"] == "0.9123" and by_smiles["CCO"]["dock_raw"] == "-8.123"
    assert by_smiles["CCO"]["dock_pose"] == f"{poses} #1"


def test_scoring_reads_sdf_with_titles_and_csv_columns(tmp_path):
    sdf = tmp_path / "actives.sdf"
    with Chem.SDWriter(str(sdf)) as writer:
        for name, smi in (("aspirin", "CC(=O)Oc1ccccc1C(=O)O"), ("paracetamol", "CC(=O)Nc1ccc(O)cc1")):
            mol = Chem.MolFromSmiles(smi)
            mol.SetProp("_Name", name)
            writer.write(mol)
    out = tmp_path / "sdf_scores.csv"
    assert main(["run", str(_scoring_toml(tmp_path, sdf, out))]) == 0
    rows = _rows(out)
    assert [r["id"] for r in rows] == ["aspirin", "paracetamol"]
    expected = QED.qed(Chem.MolFromSmiles("CC(=O)Nc1ccc(O)cc1"))
    assert float(rows[1]["QED_raw"]) == pytest.approx(expected, abs=1e-5)
    assert float(rows[1]["MW_raw"]) == pytest.approx(151.165, abs=1e-3)


def test_scoring_keeps_ids_and_every_input_column_in_csv_and_sdf(tmp_path, capsys):
    """A chemist's CSV (id, assay value, a 'score' of its own) comes back whole, beside the new columns."""
    source = tmp_path / "series.csv"
    source.write_text("compound,SMILES,pIC50,score\nPZ-001,CC(=O)Nc1ccc(O)cc1,6.2,high\n"
                      "PZ-002,not_a_smiles,5.1,low\nPZ-003,CC(=O)Oc1ccccc1C(=O)O,7.0,\n")
    out, sdf = tmp_path / "scored.csv", tmp_path / "scored.sdf"
    toml = _scoring_toml(tmp_path, source, out)
    toml.write_text(toml.read_text().replace("[scoring]", f'id_column = "compound"\nsdf_file = "{sdf}"\n[scoring]', 1))
    assert main(["run", str(toml)]) == 0
    rows = _rows(out)
    assert list(rows[0])[:6] == ["row", "id", "input_SMILES", "SMILES", "pIC50", "input_score"]
    assert [(r["id"], r["pIC50"], r["input_score"]) for r in rows] == [
        ("PZ-001", "6.2", "high"), ("PZ-002", "5.1", "low"), ("PZ-003", "7.0", "")]
    assert rows[1]["reason"] == "invalid SMILES" and float(rows[0]["score"]) > 0
    records = list(Chem.SDMolSupplier(str(sdf)))
    assert [m.GetProp("_Name") for m in records] == ["PZ-001", "PZ-003"]  # the invalid row has no structure
    assert records[0].GetProp("pIC50") == "6.2" and records[0].GetProp("input_score") == "high"
    assert records[0].GetProp("QED_raw") == rows[0]["QED_raw"]
    # without id_column the 'id' column is used if present, else the row number; a missing id_column is named
    source.write_text("SMILES,id\nCCO,E-1\nCCN,E-2\n")
    toml.write_text(toml.read_text().replace('id_column = "compound"\n', ""))
    assert main(["run", str(toml), "--overwrite"]) == 0
    assert [r["id"] for r in _rows(out)] == ["E-1", "E-2"]
    toml.write_text(toml.read_text().replace("[scoring]", 'id_column = "name"\n[scoring]', 1))
    capsys.readouterr()
    assert main(["run", str(toml), "--overwrite"]) == 2
    assert "[parameters.id_column]" in capsys.readouterr().err


def test_shipped_project_objective_excludes_the_series_and_alerts(tmp_path, monkeypatch):
    """configs/scoring/pyrazole_amides_project.toml: series members and alerted molecules score 0, the rest
    do not; the report of the scored table marks the series members known and names the alerts."""
    monkeypatch.chdir(REPO)  # the objective names configs/data/pyrazole_amides.smi relative to the checkout
    series = [line.split()[0] for line in SERIES.read_text().splitlines()[1:]]
    member = series[5]
    novel = "Cc1cc(C(=O)NC2CCOC2)n(-c2ccc(Cl)cc2)n1"  # the series acid with an amine it does not use
    assert novel not in series and Chem.CanonSmiles(novel) not in {Chem.CanonSmiles(s) for s in series}
    alerted = "CCN(CC)c1ccc(-n2nc(C)cc2C(=O)NC2CCOCC2)cc1"  # PAINS anil_di_alk_A on a series-like amide
    source = tmp_path / "lib.csv"
    source.write_text(f"id,SMILES\nM1,{member}\nN1,{novel}\nA1,{alerted}\n")
    out = tmp_path / "scores.csv"
    toml = tmp_path / "score.toml"
    toml.write_text(f'run_type = "scoring"\n[parameters]\nsmiles_file = "{source}"\noutput_csv = "{out}"\n'
                    '[scoring]\nfilename = "configs/scoring/pyrazole_amides_project.toml"\n')
    assert main(["run", str(toml)]) == 0
    rows = {r["id"]: r for r in _rows(out)}
    assert (float(rows["M1"]["score"]), rows["M1"]["novel_raw"]) == (0.0, "0")
    assert (float(rows["A1"]["score"]), rows["A1"]["alerts_raw"]) == (0.0, "0")
    assert float(rows["N1"]["score"]) > 0.3 and rows["N1"]["novel_raw"] == rows["N1"]["alerts_raw"] == "1"
    assert main(["report", str(out), "--known", str(SERIES)]) == 0
    hits = {r["id"]: r for r in _rows(tmp_path / "scores_hits.csv")}
    assert hits["M1"]["known_in"] == "pyrazole_amides.smi" and hits["N1"]["known_in"] == hits["A1"]["known_in"] == ""
    assert "anil_di_alk_A" in hits["A1"]["alert_names"] and hits["N1"]["alert_names"] == ""
    assert float(hits["A1"]["alerts"]) == 0.0 and float(hits["N1"]["alerts"]) == 1.0  # the endpoint score stays
    page = (tmp_path / "scores_report.html").read_text()
    assert 'class="known"' in page and "anil_di_alk_A" in page
