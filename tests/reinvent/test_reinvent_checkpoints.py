"""REINVENT 4.8's stage checkpoints (``chkpt_file``) read back: by mara-chem without running a pickle, and by
REINVENT with ``use_checkpoint = true`` only into the strategy that wrote mara-chem's state."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from mara_chem.models.prior_file import PriorFileError, load_prior
from mara_chem.models.reinvent_prior import save_reinvent_prior
from tests.reinvent.reinvent_toml import qed_stage
from tests.paths import REPO

BUNDLED = REPO / "priors" / "moses-gru-2x256.prior"

RUN_FILE = """
run_type = "staged_learning"
device = "cpu"
seed = 1

[parameters]
prior_file = "{prior}"
agent_file = "{agent}"
use_checkpoint = {resume}
summary_csv_prefix = "{out}/summary"
batch_size = 16

[learning_strategy]
{strategy}

[diversity_filter]
type = "IdenticalMurckoScaffold"
bucket_size = 25
minscore = 0.4
"""
RUN_FILE += qed_stage(max_steps=2, max_score=1.0, min_steps=10, chkpt="{out}/stage1.chkpt")

IPS_SCAFFOLD_WINDOW = 'type = "ips_dap"\noutcome = "scaffold"\nfrequency = "window"'


def write_run_file(folder: Path, prior: Path, strategy: str, agent: Path | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "run.toml"
    path.write_text(RUN_FILE.format(prior=prior, agent=agent or prior, resume=str(agent is not None).lower(),
                                    out=folder, strategy=strategy))
    return path


@pytest.fixture(scope="module")
def checkpoints(reinvent_rl, tmp_path_factory) -> dict[str, Path]:
    """Stage checkpoints REINVENT wrote after 2-step runs (with its scaffold diversity filter pickled inside):
    one of MARA, one of IPS-DAP counting scaffolds over a window; and the REINVENT prior they started from."""
    from mara_chem.reinvent import main

    root = tmp_path_factory.mktemp("chkpt")
    prior = save_reinvent_prior(load_prior(BUNDLED), root / "bundled.prior")
    made = {"prior": prior}
    for name, strategy in (("mara", 'type = "mara"\ntau = 0.6'), ("ips", IPS_SCAFFOLD_WINDOW)):
        assert main([str(write_run_file(root / name, prior, strategy)), "--log-level", "warning"]) == 0
        made[name] = root / name / "stage1.chkpt"
    return made


def test_a_reinvent_rl_checkpoint_is_read_without_importing_or_running_reinvent(checkpoints):
    """The checkpoint pickles REINVENT's diversity filter (IdenticalMurckoScaffold, BucketCounter): a process
    without REINVENT samples the agent in it, reads those objects as inert stand-ins and says they were not read."""
    child = ("import sys, torch; from mara_chem.models.prior_file import load_prior; "
             "m = load_prior(sys.argv[1]); torch.manual_seed(0); print(len(m.sample(4).smiles)); "
             "print(m.metadata['not_read']); print(sorted(n for n in sys.modules if n.split('.')[0] == 'reinvent'))")
    done = subprocess.run([sys.executable, "-c", child, str(checkpoints["ips"])], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=120)
    assert done.returncode == 0, done.stderr
    count, not_read, imported = done.stdout.splitlines()
    assert count == "4" and imported == "[]"
    assert "diversity filter" in not_read and "IdenticalMurckoScaffold" in not_read and "BucketCounter" in not_read
    # the weights are the agent's after two updates, not the prior's
    agent, prior = load_prior(checkpoints["ips"]), load_prior(checkpoints["prior"])
    assert any(not torch.equal(a, b) for a, b in zip(agent.network.state_dict().values(),
                                                     prior.network.state_dict().values()))


def test_prior_convert_and_sample_read_a_reinvent_checkpoint_and_name_what_was_skipped(checkpoints, tmp_path, capsys):
    from mara_chem.cli import main

    out = tmp_path / "agent.prior"
    assert main(["prior", "convert", str(checkpoints["mara"]), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "from a REINVENT prior" in captured.out
    assert main(["prior", "sample", str(out), "-n", "4", "--seed", "0"]) == 0
    assert "samples: 4" in capsys.readouterr().out


def test_a_planted_class_under_reinvents_name_is_never_run(tmp_path):
    """A class named like REINVENT's becomes an inert stand-in: its pickled call (os.system here) never runs;
    anything outside REINVENT's namespace is refused as before, in one line without terminal colour codes."""
    marker = tmp_path / "ran"

    class Planted:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    payload = {"network": {}, "vocabulary": {"tokens": {}}, "staged_learning": Planted()}
    path = tmp_path / "planted.chkpt"
    # rename the global to REINVENT's namespace in the pickle: the loader must not import or call it
    torch.save(payload, path, pickle_protocol=2)
    import zipfile

    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    data_name = next(n for n in entries if n.endswith("data.pkl"))
    original = f"c{os.system.__module__}\nsystem\n".encode()  # the GLOBAL opcode naming os.system
    assert original in entries[data_name]
    entries[data_name] = entries[data_name].replace(original, b"creinvent.runmodes.RL.memories\nsystem\n")
    with zipfile.ZipFile(path, "w") as archive:
        for name, blob in entries.items():
            archive.writestr(name, blob)
    with pytest.raises(PriorFileError):  # no weights: not a model, yet nothing ran
        load_prior(path)
    assert not marker.exists()
    foreign = tmp_path / "foreign.chkpt"
    torch.save({"network": {}, "vocabulary": {"tokens": {}}, "staged_learning": Planted()}, foreign)
    with pytest.raises(PriorFileError, match=r"it would import .*system.*REINVENT's RL checkpoints") as refused:
        load_prior(foreign)
    assert "\x1b[" not in str(refused.value) and "\n" not in str(refused.value)
    assert not marker.exists()


@pytest.mark.parametrize("written_by, strategy, said", [
    ("mara", 'type = "ips_dap"', "written by type = 'mara', this run file has type = 'ips_dap' with a learned log Z"),
    ("ips", 'type = "mara"\ntau = 0.6', "written by type = 'ips_dap'"),
    ("ips", 'type = "ips_dap"\noutcome = "cluster"\nfrequency = "window"', "outcome = 'scaffold'.*outcome = 'cluster'"),
    ("ips", 'type = "ips_dap"\noutcome = "scaffold"', "frequency = 'window'.*frequency = 'batch'"),
])
def test_use_checkpoint_with_another_strategy_is_refused_before_reinvent_loads_a_model(
        checkpoints, tmp_path, capsys, written_by, strategy, said):
    from mara_chem.reinvent import main

    run_file = write_run_file(tmp_path, checkpoints["prior"], strategy, agent=checkpoints[written_by])
    assert main([str(run_file), "--log-level", "warning"]) == 2
    err = capsys.readouterr().err
    assert "use_checkpoint = true: the mara-chem strategy state in agent_file" in err
    assert "set use_checkpoint = false" in err and "Traceback" not in err
    import re

    assert re.search(said, err), err
    assert not (tmp_path / "summary_1.csv").exists()


def test_the_documented_way_on_use_checkpoint_false_starts_the_new_strategy_from_the_agent(checkpoints, tmp_path):
    from mara_chem.reinvent import main

    strategy = 'type = "ips_dap"\noutcome = "cluster"\nfrequency = "window"'
    run_file = write_run_file(tmp_path, checkpoints["prior"], strategy, agent=checkpoints["ips"])
    run_file.write_text(run_file.read_text().replace("use_checkpoint = true", "use_checkpoint = false"))
    assert main([str(run_file), "--log-level", "warning"]) == 0
    state = torch.load(tmp_path / "stage1.chkpt", map_location="cpu", weights_only=False)["mara_chem"]
    assert state["settings"]["outcomes"]["outcome"] == "cluster"
    assert len(state["inputs"]["window"]) == 2  # two fresh steps counted, none of the scaffold run's


def test_the_same_strategy_resumes_its_state(checkpoints, tmp_path):
    from mara_chem.reinvent import main

    run_file = write_run_file(tmp_path, checkpoints["prior"], IPS_SCAFFOLD_WINDOW, agent=checkpoints["ips"])
    assert main([str(run_file), "--log-level", "warning"]) == 0
    state = torch.load(tmp_path / "stage1.chkpt", map_location="cpu", weights_only=False)["mara_chem"]
    assert len(state["inputs"]["window"]) == 4  # the first run's two steps came back, two more joined them


@pytest.mark.parametrize("option", ['type = "ips_dap"\nfrequency = "memory"',
                                    'type = "mara"\ntau = 0.6\nanchor_pool = "batch+memory"'])
def test_memory_options_without_inception_are_refused_in_reinvent(checkpoints, tmp_path, capsys, option):
    from mara_chem.reinvent import main

    run_file = write_run_file(tmp_path, checkpoints["prior"], option)
    assert main([str(run_file)]) == 2
    err = capsys.readouterr().err
    assert "read(s) REINVENT's inception memory, and this run file has no [inception]" in err
    assert option.splitlines()[-1] in err
