"""mara-chem's `retrosynthesis` component (template retrosynthesis to purchasable stock) as a REINVENT 4
scoring plugin (`[stage.scoring.component.MaraRetrosynthesis]`)."""

from mara_chem.reinvent.components import reinvent_plugin

Parameters, MaraRetrosynthesis = reinvent_plugin("retrosynthesis", "MaraRetrosynthesis")
