"""Oracle budget and cache on top of the oracle log (:mod:`mara_chem.run_folder.oracle_log`).

One oracle call is the first scoring of a new valid canonical SMILES within a stage; repeats come from the
cache for free. Call numbers are global: contiguous across stages, each stage charged against its own
budget. The log on disk is the source of truth: on resume the cache and the counters are rebuilt from it,
so calls paid for before a kill are neither lost nor charged twice, and a torn last line is re-recorded
under its own call number (:func:`recover_torn_line`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from mara_chem.run_folder.oracle_log import AGENT, LOG_NAME, OracleLog, TornLine, format_value, parse_value
from mara_chem.scoring.scorer import Scorer

__all__ = ["LOG_NAME", "Oracle", "OracleLog", "Scored", "log_row", "recover_torn_line", "scores_array"]

TORN_UNKNOWN_REASON = "log line torn: molecule unknown, call kept as spent"


@dataclass
class Scored:
    total: float  # NaN when scoring failed
    scores: dict[str, float]
    raw: dict[str, float]
    reason: str | None
    call: int


def log_row(log: OracleLog, smiles: str, entry: Scored, step: int, stage: int,
            source: str = AGENT) -> dict[str, object]:
    """The log row of one paid call (also used to convert another tool's record, benchmarks/peers/); ``source``
    goes in only where the log has the column."""
    row: dict[str, object] = {"call": entry.call, "step": step, "stage": stage, "smiles": smiles,
                              "score": format_value(entry.total), "reason": entry.reason or ""}
    if log.sources:
        row["source"] = source
    for e in log.endpoints:
        row[e] = format_value(entry.scores.get(e, math.nan))
        row[f"{e}_raw"] = format_value(entry.raw.get(e, math.nan))
    return row


def _score_one(scorer: Scorer, smiles: str, call: int) -> Scored:
    result = scorer([smiles])
    return Scored(total=float(result.total[0]), scores={e: float(result.scores[e][0]) for e in scorer.endpoint_names},
                  raw={e: float(result.raw[e][0]) for e in scorer.endpoint_names}, reason=result.reasons[0], call=call)


class Oracle:
    """Scores canonical SMILES for one stage, charging each new molecule once against the stage's budget."""

    def __init__(self, scorer: Scorer, log: OracleLog, stage: int, budget: int | None):
        self.scorer = scorer
        self.log = log
        self.stage = stage
        self.budget = budget
        self.cache: dict[str, Scored] = {}
        self.calls = 0  # charged in this stage
        self.next_call = 1  # global 1-based call number

    @property
    def remaining(self) -> int | None:
        return None if self.budget is None else self.budget - self.calls

    @property
    def exhausted(self) -> bool:
        return self.budget is not None and self.calls >= self.budget

    def restore(self, rows: list[dict[str, str]]) -> None:
        """Rebuild cache and counters from the log's rows (all stages: numbering; this stage's: cache, budget)."""
        for row in rows:
            call = int(row["call"])
            self.next_call = max(self.next_call, call + 1)
            if int(row["stage"]) != self.stage:
                continue
            self.calls += 1
            if not row["smiles"]:  # a call whose molecule a torn line lost: spent, nothing to cache
                continue
            self.cache[row["smiles"]] = Scored(
                total=parse_value(row["score"]),
                scores={e: parse_value(row.get(e, "")) for e in self.scorer.endpoint_names},
                raw={e: parse_value(row.get(f"{e}_raw", "")) for e in self.scorer.endpoint_names},
                reason=row.get("reason") or None,
                call=call,
            )

    def score(self, smiles: list[str], step: int, mols: Mapping[str, Any] | None = None,
              source: str = AGENT) -> dict[str, Scored]:
        """Scores for the given unique canonical SMILES that are cached or fit in the budget. ``mols``: a
        :class:`~mara_chem.chem.smiles.ParsedMolecules` of the step, where the scorer's molecules come from
        (and stay, for the step's other uses); without it the scorer parses them itself. ``source``: where the
        new molecules came from, for the log's ``source`` column."""
        new = [s for s in dict.fromkeys(smiles) if s not in self.cache]
        if self.remaining is not None:
            new = new[: max(0, self.remaining)]
        if new:
            parsed = [mols[s] for s in new] if mols is not None and self.scorer.parses else None
            result = self.scorer(new, parsed)
            rows = []
            for i, smi in enumerate(new):
                entry = Scored(
                    total=float(result.total[i]),
                    scores={e: float(result.scores[e][i]) for e in self.scorer.endpoint_names},
                    raw={e: float(result.raw[e][i]) for e in self.scorer.endpoint_names},
                    reason=result.reasons[i],
                    call=self.next_call,
                )
                self.cache[smi] = entry
                rows.append(log_row(self.log, smi, entry, step, self.stage, source))
                self.next_call += 1
                self.calls += 1
            self.log.append(rows)
        return {s: self.cache[s] for s in smiles if s in self.cache}


def recover_torn_line(log: OracleLog, torn: TornLine, scorer_for_stage: Callable[[int], Scorer]) -> str:
    """Re-record a torn last line (already cut off the file) under its own call number; returns what was done.

    The line keeps its call number in every case, so no other molecule can take it: a line that only lost its
    end keeps its paid score; one whose score was cut off is scored again (the call is re-made, charged once);
    one whose SMILES was cut off stays a spent call with an empty SMILES and a reason.
    """
    fields, previous = torn.fields, torn.previous or {}
    at = {name: i for i, name in enumerate(log.columns)}

    def complete(name: str) -> bool:  # a field followed by a comma was written in full
        return len(fields) > at[name] + 1

    step = int(fields[at["step"]]) if complete("step") else int(previous.get("step", 0))
    stage = int(fields[at["stage"]]) if complete("stage") else int(previous.get("stage", 1))
    source = fields[at["source"]] if log.sources and complete("source") else previous.get("source", AGENT)
    where = f"{log.path}: torn last line (call {torn.call}, step {step}, stage {stage})"
    if len(fields) == len(log.columns) and fields[0] == str(torn.call):
        log.append([dict(zip(log.columns, fields))])
        return f"{where} was complete but for its end: kept with its paid score"
    smiles = fields[at["smiles"]] if complete("smiles") else ""
    if smiles:
        scorer = scorer_for_stage(stage)
        try:
            entry = _score_one(scorer, smiles, torn.call)
        finally:
            scorer.close()
        log.append([log_row(log, smiles, entry, step, stage, source)])
        return f"{where} lost its score: {smiles} scored again under the same call number (charged once)"
    entry = Scored(total=math.nan, scores={}, raw={}, reason=TORN_UNKNOWN_REASON, call=torn.call)
    log.append([log_row(log, "", entry, step, stage, source)])
    return f"{where} lost its SMILES: the call stays spent, recorded with an empty SMILES"


def scores_array(smiles: list[str | None], scored: dict[str, Scored]) -> np.ndarray:
    """Per-sample total score; NaN for invalid, unscored or failed molecules."""
    return np.array([scored[s].total if s is not None and s in scored else math.nan for s in smiles], dtype=float)
