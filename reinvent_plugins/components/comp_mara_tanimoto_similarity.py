"""mara-chem's `TanimotoSimilarity` component as a REINVENT 4 scoring plugin (`[stage.scoring.component.MaraTanimotoSimilarity]`)."""

from mara_chem.reinvent.components import reinvent_plugin

Parameters, MaraTanimotoSimilarity = reinvent_plugin("TanimotoSimilarity", "MaraTanimotoSimilarity")
