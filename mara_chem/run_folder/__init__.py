"""The run folder's file formats, one owner each: the oracle log (``oracle_log.csv``), the run record
(``run.json``, ``changes.json``) and the writer's lock (``run.lock``).

This package sits on the ground floor: ``rl`` writes these files, ``metrics`` and ``report`` read them, and
none of those is imported from here.
"""
