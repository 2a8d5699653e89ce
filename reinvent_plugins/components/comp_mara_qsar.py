"""mara-chem's `qsar` component as a REINVENT 4 scoring plugin (`[stage.scoring.component.MaraQsar]`)."""

from mara_chem.reinvent.components import reinvent_plugin

Parameters, MaraQsar = reinvent_plugin("qsar", "MaraQsar")
