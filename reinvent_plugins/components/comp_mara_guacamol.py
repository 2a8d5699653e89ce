"""mara-chem's `Guacamol` component (PMO's offline GuacaMol objectives) as a REINVENT 4 scoring plugin
(`[stage.scoring.component.MaraGuacamol]`)."""

from mara_chem.reinvent.components import reinvent_plugin

Parameters, MaraGuacamol = reinvent_plugin("Guacamol", "MaraGuacamol")
