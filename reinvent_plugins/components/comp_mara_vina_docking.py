"""mara-chem's `vina_docking` component as a REINVENT 4 scoring plugin (`[stage.scoring.component.MaraVinaDocking]`)."""

from mara_chem.reinvent.components import reinvent_plugin

Parameters, MaraVinaDocking = reinvent_plugin("vina_docking", "MaraVinaDocking")
