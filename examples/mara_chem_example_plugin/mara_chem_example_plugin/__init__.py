"""An example third-party mara-chem plugin (see the "Extending mara-chem" section of mara-chem's README).

Nothing is imported here: mara-chem imports each module through its entry point on first use.
"""
