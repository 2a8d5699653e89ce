"""The contract of an expensive oracle's worker, and the loop a pool process serves it in.

A worker is built once from picklable settings (receptor maps, a template model: the costly set-up) and
then answers one molecule at a time. The executors (``executors.py``) only ever call these methods, so
the next expensive oracle (another docking engine, a QM or ADMET service) is a ``Worker`` subclass with its
settings and outcome types, and nothing else in this package changes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from mara_chem.text import first_line


class Settings(Protocol):
    """What the executors read from a worker's settings (everything else is the worker's business)."""

    cpu_per_worker: int

    def fingerprint(self) -> str:
        """Hash of everything that changes an outcome (the outcome cache's key)."""


class Outcome(Protocol):
    """What the executors and the cache read from an outcome: whose it is, how long it took, whether it
    depends on the molecule only (stored) or on the machine too (timeouts, dead workers: not stored)."""

    smiles: str
    seconds: float
    cacheable: bool


S = TypeVar("S", bound=Settings)
O = TypeVar("O", bound=Outcome)


class Worker(ABC, Generic[S, O]):
    """Built once per process from ``settings``; ``run`` never raises for a molecule (it returns an outcome
    with the reason); ``failure`` is the outcome the executor reports for a molecule the worker could not
    finish (timeout, dead worker), so every outcome of one oracle has the worker's own type."""

    #: what a worker that cannot start is called in the error (e.g. "docking worker")
    kind: ClassVar[str] = "worker"

    @abstractmethod
    def __init__(self, settings: S):
        """The costly set-up; an exception here stops the executor with the message."""

    def ping(self) -> bool:
        """Returns once the set-up is done (a worker is 'ready' when this answers)."""
        return True

    @abstractmethod
    def run(self, smiles: str) -> O:
        """One molecule's outcome (``outcome.smiles == smiles``), never an exception."""

    @classmethod
    @abstractmethod
    def failure(cls, smiles: str, reason: str, seconds: float) -> O:
        """The outcome of a molecule the machine, not the molecule, failed: ``cacheable`` is False."""

    @classmethod
    def label(cls, settings: S) -> str:
        """Names the worker in a start-up error (a docking worker names its receptor)."""
        return cls.__name__

    @staticmethod
    def cost(smiles: str) -> float:
        """Rough relative time of one molecule (heavy atoms x torsions), only to start slow ones first."""
        from rdkit import Chem
        from rdkit.Chem import rdMolDescriptors

        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            return 0.0
        return mol.GetNumHeavyAtoms() * (1 + rdMolDescriptors.CalcNumRotatableBonds(mol))


def pool_worker_main(conn: Any) -> None:
    """Entry point of a pool process: say hello, receive the settings and worker class over the pipe, then serve."""
    conn.send(("hello", None))
    try:
        settings, worker_cls = conn.recv()
    except EOFError:
        return
    serve(conn, settings, worker_cls)


def serve(conn: Any, settings: Any, worker_cls: type[Worker]) -> None:
    """Build the worker, say 'ready', then answer SMILES requests until ``None`` or the pipe closes."""
    try:
        worker = worker_cls(settings)
    except Exception as exc:
        conn.send(("init_error", f"{worker_cls.label(settings)}: {type(exc).__name__}: {first_line(str(exc))}"))
        return
    conn.send(("ready", None))
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        conn.send(("result", worker.run(request)))
