"""The report's defaults, in a module without heavy imports so that building the CLI parser loads no RDKit."""

#: rows in the page's table when nobody says (paged; hits.csv and hits.sdf hold every hit)
DEFAULT_TOP = 1000
#: the Tanimoto at which a molecule joins a cluster when nobody chooses one
DEFAULT_CLUSTER_SIMILARITY = 0.6
