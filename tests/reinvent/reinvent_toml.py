"""REINVENT 4.8 run-file text shared by the tests that run the same file in mara-chem and in REINVENT."""

QED_STAGE = """
[[stage]]
max_steps = {max_steps}
max_score = {max_score}
min_steps = {min_steps}
chkpt_file = "{chkpt}"

[stage.scoring]
type = "geometric_mean"

[[stage.scoring.component]]
[stage.scoring.component.QED]
[[stage.scoring.component.QED.endpoint]]
name = "QED"
weight = 1
"""


#: a ``[[stage.scoring.component]]`` scored by the ``MaraTanimotoSimilarity`` plugin (similarity to aspirin)
ASPIRIN_SIMILARITY = """[[stage.scoring.component]]
[stage.scoring.component.MaraTanimotoSimilarity]
[[stage.scoring.component.MaraTanimotoSimilarity.endpoint]]
name = "similar to aspirin"
params.smiles = ["CC(=O)Oc1ccccc1C(=O)O"]
"""


def qed_stage(max_steps: int, max_score: float, min_steps: int, chkpt: str) -> str:
    """One ``[[stage]]`` scored by QED alone (REINVENT's and mara-chem's component of that name)."""
    return QED_STAGE.format(max_steps=max_steps, max_score=max_score, min_steps=min_steps, chkpt=chkpt)


#: one ``[[stage]]`` scored by the ``MaraGuacamol`` plugin (guacamol's celecoxib rediscovery); ``{out}`` is the
#: folder of its checkpoint
MARA_GUACAMOL_STAGE = """
[[stage]]
max_steps = 2
max_score = 1.0
min_steps = 10
chkpt_file = "{out}/stage1.chkpt"
[stage.scoring]
type = "geometric_mean"
[[stage.scoring.component]]
[stage.scoring.component.MaraGuacamol]
[[stage.scoring.component.MaraGuacamol.endpoint]]
name = "celecoxib"
params.objective = "celecoxib_rediscovery"
"""
