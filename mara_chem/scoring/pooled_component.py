"""The base of the components whose molecules go to the worker pool through an outcome cache (docking,
retrosynthesis).

``score_batch`` is a template that keeps the books once for every pooled oracle: each valid SMILES once, the
cache first, the rest on the pool (started on first need, so building a component to validate a run costs
nothing), the component's own file of new outcomes, one log line. A subclass says how its pool starts, what an
outcome is worth and what the log line counts.
"""

from __future__ import annotations

import logging
import time
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Generic

from mara_chem.chem.smiles import to_mol
from mara_chem.scoring.component import ComponentParams, Failure, Scored, ScoringComponent
from mara_chem.scoring.workers.cache import OutcomeCache
from mara_chem.scoring.workers.executors import Executor, map_with_cache
from mara_chem.scoring.workers.worker import O

log = logging.getLogger(__name__)


class PooledComponent(ScoringComponent, Generic[O]):
    """Scores through the worker pool and ``cache``; ``close`` shuts both, once."""

    computed: ClassVar[str]  # the log line's word for outcomes the pool computed ("docked", "searched")

    def __init__(self, params: ComponentParams | dict | None = None):
        super().__init__(params)
        self.cache: OutcomeCache[O] | None = None
        self._executor: Executor[Any, O] | None = None
        self._ids: dict[str, str] = {}

    @abstractmethod
    def _start_executor(self) -> Executor[Any, O]:
        """The pool of this component's workers."""

    @abstractmethod
    def _value(self, outcome: O | None) -> float | Failure | Scored:
        """What an outcome is worth (None: the SMILES did not parse)."""

    @abstractmethod
    def _counts(self, outcomes: Sequence[O]) -> str:
        """The log line's count of what the batch's outcomes were (e.g. "3 solved")."""

    def _write_outcomes(self, outcomes: Sequence[O]) -> None:
        """Append the batch's new outcomes to the component's own file, where it writes one."""

    @property
    def executor(self) -> Executor[Any, O]:
        if self._executor is None:
            self._executor = self._start_executor()
        return self._executor

    def name_molecules(self, ids: dict[str, str]) -> None:
        self._ids.update(ids)

    def score_batch(self, smiles: list[str]) -> list[float | Failure | Scored]:
        start = time.perf_counter()
        valid = [s for s in dict.fromkeys(smiles) if to_mol(s) is not None]
        outcomes, n_cached = map_with_cache(valid, self.cache, lambda: self.executor)
        batch = [outcomes[s] for s in valid]
        self._write_outcomes(batch)
        log.info("%s: %d molecules, %d %s, %d from cache, %s, %.1f s", self.name, len(valid),
                 len(valid) - n_cached, self.computed, n_cached, self._counts(batch), time.perf_counter() - start)
        return [self._value(outcomes.get(s)) for s in smiles]

    def close(self) -> None:
        if self._executor is not None:
            self._executor.close()
            self._executor = None
        if self.cache is not None:
            self.cache.close()
            self.cache = None
