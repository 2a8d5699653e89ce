"""Where an expensive oracle's molecules run: ``serial`` (this process), ``pool`` (local worker processes),
``ray`` (a cluster).

One interface, ``Executor.map(smiles) -> outcomes in input order``, and one registry by name. An executor
is built from a ``Worker`` class (``worker.py``: ``ping``, ``run``, ``failure``) and that worker's settings,
so Vina docking and retrosynthesis run on the same three executors, and so does the next oracle.
The parallel executors share one scheduling loop (``_ParallelExecutor``): each worker does its set-up once
(receptor maps, a template model), then takes one molecule at a time; a molecule that overruns
``timeout_s`` has its worker killed and replaced (Vina cannot be interrupted inside its C++ search), and a
worker that dies takes only its current molecule with it. Backends fill four hooks: spawn, send, poll, kill.

``timeout_clock = "cpu"`` (the default) counts the CPU seconds a molecule costs its worker (per thread the
worker was given, ``cpu_per_worker``), not wall seconds: on a machine at a load of 5, a wall-clock limit
would end molecules that need only a fifth of it, and the score would be blank for a reason that is the
machine's, not the molecule's. A molecule also ends after ``WALL_FACTOR`` times the limit in wall seconds (a
worker that sleeps or deadlocks uses no CPU). The pool reads its workers' CPU time from ``/proc``; the
serial executor measures its own; Ray actors are not visible from here, so Ray counts wall seconds.
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic

from mara_chem.plugins import EXECUTORS
from mara_chem.registry import Registered
from mara_chem.scoring.workers.cache import OutcomeCache
from mara_chem.scoring.workers.worker import O, S, Worker, pool_worker_main

log = logging.getLogger(__name__)


# Event kinds a backend's poll reports: (worker, kind, payload)
READY, RESULT, INIT_ERROR, DIED, HELLO = "ready", "result", "init_error", "died", "hello"
#: what a worker that dies before it has even started usually means (spawn re-imports the calling script)
MAIN_GUARD_HINT = (
    "a spawned process re-runs the calling script: if you score from a script, put the calling code under "
    "`if __name__ == \"__main__\":` (or use executor = \"serial\")"
)
Event = tuple[Any, str, Any]
#: CLOCKS a timeout can count; with "cpu", a molecule also ends after this many times its limit in wall seconds
CLOCKS = ("cpu", "wall")
WALL_FACTOR = 10.0


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process (every thread), from ``/proc``; None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def available_cores() -> int:
    """Cores this process may use (the affinity mask, which containers and ``taskset`` narrow)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class Executor(Registered, ABC, Generic[S, O]):
    """Runs SMILES through ``worker_cls(settings)``; ``map`` returns one outcome per input, in order.

    ``map`` is the template (empty batches, one outcome per input, each for its own SMILES); subclasses
    implement ``_map`` and ``n_workers``.
    """

    plugin_registry = EXECUTORS
    name: ClassVar[str] = ""

    def __init__(
        self,
        settings: S,
        n_workers: int | None = None,
        timeout_s: float = 120.0,
        address: str | None = None,
        init_timeout_s: float = 600.0,
        timeout_clock: str = "cpu",
        *,
        worker_cls: type[Worker[S, O]],
    ):
        if timeout_clock not in CLOCKS:
            raise ValueError(f"unknown timeout clock {timeout_clock!r}; valid: {list(CLOCKS)}")
        self.timeout_clock = timeout_clock
        self.settings = settings
        self.worker_cls = worker_cls
        self.requested_workers = n_workers
        self.timeout_s = timeout_s
        self.address = address
        self.init_timeout_s = init_timeout_s

    @property
    @abstractmethod
    def n_workers(self) -> int:
        """Workers running in parallel."""

    def map(self, smiles: Sequence[str]) -> list[O]:
        """One outcome per SMILES, in input order; an executor that loses or reorders molecules is a bug."""
        smiles = list(smiles)
        if not smiles:
            return []
        outcomes = self._map(smiles)
        if len(outcomes) != len(smiles) or any(o is None or o.smiles != s for o, s in zip(outcomes, smiles)):
            raise RuntimeError(f"executor {self.name} returned outcomes that do not match its {len(smiles)} inputs")
        return outcomes

    @abstractmethod
    def _map(self, smiles: list[str]) -> list[O]:
        """Run a non-empty batch; outcome i belongs to ``smiles[i]``."""

    def close(self) -> None:
        """Stop the workers; the executor may not be used afterwards."""

    def __enter__(self) -> "Executor[S, O]":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _timeout_outcome(self, smiles: str, seconds: float, cpu: bool = False) -> O:
        unit = "CPU s" if cpu else "s"
        return self.worker_cls.failure(smiles, f"timeout after {self.timeout_s:g} {unit}", seconds)

    @property
    def _threads(self) -> int:
        return max(1, int(getattr(self.settings, "cpu_per_worker", 1)))


class SerialExecutor(Executor[S, O]):
    """One worker in this process: for debugging and small jobs.

    A worker cannot be pre-empted here, so a molecule that overruns ``timeout_s`` is run to the end and then
    reported as a timeout, as the pool would report it; the executors thus agree on every molecule.
    """

    name = "serial"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._worker: Any = None

    @property
    def n_workers(self) -> int:
        return 1

    def _map(self, smiles: list[str]) -> list[O]:
        if self._worker is None:
            self._worker = self.worker_cls(self.settings)
        outcomes = []
        for smi in smiles:
            cpu_start = time.process_time()
            out = self._worker.run(smi)
            if self.timeout_clock == "cpu":
                cpu = (time.process_time() - cpu_start) / self._threads
                late = cpu > self.timeout_s or out.seconds > WALL_FACTOR * self.timeout_s
                outcomes.append(self._timeout_outcome(smi, out.seconds, cpu=True) if late else out)
            else:
                outcomes.append(self._timeout_outcome(smi, out.seconds) if out.seconds > self.timeout_s else out)
        return outcomes

    def close(self) -> None:
        self._worker = None


class _ParallelExecutor(Executor[S, O]):
    """The scheduling loop shared by process and Ray workers (timeouts, deaths, replacements)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._state: dict[Any, str] = {}  # worker -> "starting" | "idle" | "busy"
        self._task: dict[Any, tuple[int, float]] = {}  # busy worker -> (input index, start time)
        self._task_cpu: dict[Any, float] = {}  # busy worker -> its CPU seconds when the molecule was sent
        self._started_at: dict[Any, float] = {}
        self._greeted: set[Any] = set()  # workers whose process came up (said hello)
        self._open = False

    # -- backend hooks -------------------------------------------------------------------------------
    def _setup(self) -> None:
        """Connect to the backend (called once, before the first spawn)."""

    def _default_workers(self) -> int:
        return max(1, available_cores() // self.settings.cpu_per_worker)

    @abstractmethod
    def _spawn(self) -> Any:
        """Start one worker (it does its set-up and then reports READY)."""

    @abstractmethod
    def _send(self, worker: Any, smiles: str) -> None:
        """Hand one SMILES to an idle worker."""

    @abstractmethod
    def _poll(self, timeout: float) -> list[Event]:
        """Events (READY, RESULT, INIT_ERROR, DIED) that arrive within ``timeout`` seconds."""

    @abstractmethod
    def _kill(self, worker: Any) -> None:
        """Stop a worker now (timeouts, close)."""

    def _hello(self, worker: Any) -> None:
        """A worker process is up and reading: backends that ship the settings afterwards do it here."""
        self._greeted.add(worker)

    def _teardown(self) -> None:
        """Disconnect from the backend (after every worker is gone)."""

    def _cpu_seconds(self, worker: Any) -> float | None:
        """The worker's CPU seconds so far, or None where the backend cannot tell (then wall seconds count)."""
        return None

    # -- the books ----------------------------------------------------------------------------------
    @property
    def n_workers(self) -> int:
        return self.requested_workers or self._default_workers()

    def start(self) -> None:
        """Start every worker and wait until each is set up; a broken receptor or box raises here."""
        if self._open:
            return
        self._setup()
        self._open = True
        t0 = time.perf_counter()
        for _ in range(self.n_workers):
            self._add_worker()
        while any(state == "starting" for state in self._state.values()):
            self._dispatch(self._poll(self._wait_time()), [], [])
            self._check_startup()
        log.info("%s: %d %s workers ready in %.1f s", self.worker_cls.kind, self.n_workers, self.name,
                 time.perf_counter() - t0)

    def _map(self, smiles: list[str]) -> list[O]:
        self.start()
        results: list[O | None] = [None] * len(smiles)
        # longest first: the batch ends when its slowest molecule does, so start the slow ones early
        queue = deque(sorted(range(len(smiles)), key=lambda i: -self.worker_cls.cost(smiles[i])))
        while queue or self._task:
            for worker in [w for w, state in self._state.items() if state == "idle"]:
                if not queue:
                    break
                index = queue.popleft()
                self._state[worker] = "busy"
                self._task[worker] = (index, time.perf_counter())
                cpu = self._cpu_seconds(worker) if self.timeout_clock == "cpu" else None
                if cpu is not None:
                    self._task_cpu[worker] = cpu
                self._send(worker, smiles[index])
            self._dispatch(self._poll(self._wait_time()), results, smiles)
            self._expire(results, smiles)
            self._check_startup()
        return results  # type: ignore[return-value]

    def close(self) -> None:
        if not self._open:
            return
        for worker in list(self._state):
            self._kill(worker)
        self._state.clear()
        self._greeted.clear()
        self._task.clear()
        self._task_cpu.clear()
        self._teardown()
        self._open = False

    def _add_worker(self) -> None:
        worker = self._spawn()
        self._state[worker] = "starting"
        self._started_at[worker] = time.perf_counter()

    def _replace(self, worker: Any) -> None:
        self._kill(worker)
        self._state.pop(worker, None)
        self._greeted.discard(worker)
        self._task.pop(worker, None)
        self._task_cpu.pop(worker, None)
        self._started_at.pop(worker, None)
        self._add_worker()

    def _wait_time(self) -> float:
        now = time.perf_counter()
        deadlines = [start + self.timeout_s * (WALL_FACTOR if w in self._task_cpu else 1.0)
                     for w, (_, start) in self._task.items()]
        if not deadlines:
            return 1.0
        wait = max(0.0, min(deadlines) - now)
        return min(wait, 1.0) if self._task_cpu else wait  # CPU time is read, not awaited: look every second

    def _dispatch(self, events: list[Event], results: list, smiles: Sequence[str]) -> None:
        for worker, kind, payload in events:
            if worker not in self._state:
                continue  # a late message from a worker already replaced
            if kind == HELLO:
                self._hello(worker)
            elif kind == READY:
                self._state[worker] = "idle"
            elif kind == RESULT:
                index, _ = self._task.pop(worker)
                self._task_cpu.pop(worker, None)
                results[index] = payload
                self._state[worker] = "idle"
            elif kind == INIT_ERROR:
                self.close()
                raise RuntimeError(f"{self.worker_cls.kind} could not start: {payload}")
            elif kind == DIED and self._state[worker] == "starting":
                never_started = self.name == "pool" and worker not in self._greeted
                self.close()
                if never_started:
                    raise RuntimeError(f"{self.worker_cls.kind} died before it started ({payload}); {MAIN_GUARD_HINT}")
                raise RuntimeError(f"{self.worker_cls.kind} died during its set-up ({payload})")
            elif kind == DIED:
                if worker in self._task:
                    index, start = self._task[worker]
                    results[index] = self.worker_cls.failure(smiles[index], f"worker died ({payload})",
                                                             time.perf_counter() - start)
                log.warning("%s died (%s); starting a new one", self.worker_cls.kind, payload)
                self._replace(worker)

    def _expire(self, results: list, smiles: Sequence[str]) -> None:
        now = time.perf_counter()
        for worker, (index, start) in list(self._task.items()):
            cpu_start = self._task_cpu.get(worker)
            if cpu_start is None:
                late, cpu = now - start >= self.timeout_s, False
            else:
                used = self._cpu_seconds(worker)
                late = (used is not None and (used - cpu_start) / self._threads >= self.timeout_s) \
                    or now - start >= WALL_FACTOR * self.timeout_s
                cpu = True
            if late:
                results[index] = self._timeout_outcome(smiles[index], now - start, cpu=cpu)
                log.info("%s timeout after %.1f s: %s", self.worker_cls.kind, now - start, smiles[index])
                self._replace(worker)

    def _check_startup(self) -> None:
        now = time.perf_counter()
        for worker, state in self._state.items():
            if state == "starting" and now - self._started_at[worker] > self.init_timeout_s:
                self.close()
                raise RuntimeError(f"{self.worker_cls.kind} did not finish its set-up within {self.init_timeout_s:g} s")


class _ProcessWorker:
    """A spawned process and the parent's end of its pipe."""

    def __init__(self, process: Any, conn: Any):
        self.process, self.conn = process, conn


class PoolExecutor(_ParallelExecutor):
    """Local worker processes (``spawn``: safe next to torch threads), one molecule in flight per worker."""

    name = "pool"

    def _spawn(self) -> _ProcessWorker:
        import multiprocessing as mp

        if getattr(mp.current_process(), "_inheriting", False):  # we ARE a spawned child re-running the script
            raise RuntimeError(f"{self.worker_cls.kind} pool started while a worker process was bootstrapping; "
                               f"{MAIN_GUARD_HINT}")
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        # the settings (with the receptor text) follow over the pipe once the child says hello: handed to
        # Process they are written before it starts, and a child that dies early would block that write forever
        process = ctx.Process(target=pool_worker_main, args=(child,), daemon=True, name=f"{self.worker_cls.__name__}")
        process.start()
        child.close()
        return _ProcessWorker(process, parent)

    def _hello(self, worker: _ProcessWorker) -> None:
        super()._hello(worker)
        worker.conn.send((self.settings, self.worker_cls))

    def _send(self, worker: _ProcessWorker, smiles: str) -> None:
        worker.conn.send(smiles)

    def _cpu_seconds(self, worker: _ProcessWorker) -> float | None:
        return process_cpu_seconds(worker.process.pid) if worker.process.pid else None

    def _poll(self, timeout: float) -> list[Event]:
        from multiprocessing.connection import wait

        owners: dict[Any, _ProcessWorker] = {}
        for worker in self._state:
            owners[worker.conn] = worker
            owners[worker.process.sentinel] = worker
        events: list[Event] = []
        for worker in dict.fromkeys(owners[obj] for obj in wait(list(owners), timeout)):
            try:
                if worker.conn.poll():
                    kind, payload = worker.conn.recv()
                    events.append((worker, kind, payload))
                    continue
            except (EOFError, OSError):
                pass
            worker.process.join(1.0)
            events.append((worker, DIED, f"exit code {worker.process.exitcode}"))
        return events

    def _kill(self, worker: _ProcessWorker) -> None:
        if worker.process.is_alive() and self._state.get(worker) == "idle":
            try:
                worker.conn.send(None)  # polite stop for an idle worker
                worker.process.join(2.0)
            except (OSError, ValueError):
                pass
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join(5.0)
        worker.conn.close()


class _RayWorker:
    def __init__(self, actor: Any):
        self.actor = actor


class RayExecutor(_ParallelExecutor):
    """Ray actors, one per worker: ``address=None`` starts a local Ray; ``"auto"`` or ``"ray://..."`` joins a
    cluster, where ``n_workers=None`` means one worker per cluster CPU. Nodes need mara-chem installed;
    the receptor travels inside the settings, so no shared filesystem is needed."""

    name = "ray"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._refs: dict[Any, tuple[_RayWorker, str]] = {}
        self._owns_ray = False
        self._actor_cls: Any = None

    def _setup(self) -> None:
        import ray

        if not ray.is_initialized():
            options: dict[str, Any] = {"address": self.address, "include_dashboard": False, "log_to_driver": False}
            if self.address is None:
                options["num_cpus"] = self.n_workers * self.settings.cpu_per_worker
            ray.init(**options)
            self._owns_ray = True
        self._actor_cls = ray.remote(num_cpus=self.settings.cpu_per_worker, max_restarts=0)(self.worker_cls)

    def _default_workers(self) -> int:
        import ray

        if self.address is not None and ray.is_initialized():
            cpus = int(ray.cluster_resources().get("CPU", 1))
            return max(1, cpus // self.settings.cpu_per_worker)
        return super()._default_workers()

    def _spawn(self) -> _RayWorker:
        worker = _RayWorker(self._actor_cls.remote(self.settings))
        self._refs[worker.actor.ping.remote()] = (worker, READY)
        return worker

    def _send(self, worker: _RayWorker, smiles: str) -> None:
        self._refs[worker.actor.run.remote(smiles)] = (worker, RESULT)

    def _poll(self, timeout: float) -> list[Event]:
        import ray
        from ray.exceptions import RayError

        if not self._refs:
            return []
        ready, _ = ray.wait(list(self._refs), num_returns=1, timeout=timeout)
        if ready:
            ready, _ = ray.wait(list(self._refs), num_returns=len(self._refs), timeout=0)
        events: list[Event] = []
        for ref in ready:
            worker, kind = self._refs.pop(ref)
            try:
                events.append((worker, kind, ray.get(ref)))
            except RayError as exc:
                events.append((worker, INIT_ERROR if kind == READY else DIED, _last_line(str(exc))))
        return events

    def _kill(self, worker: _RayWorker) -> None:
        import ray

        for ref in [r for r, (w, _) in self._refs.items() if w is worker]:
            del self._refs[ref]
        ray.kill(worker.actor, no_restart=True)

    def _teardown(self) -> None:
        import ray

        self._refs.clear()
        if self._owns_ray and ray.is_initialized():
            ray.shutdown()
        self._owns_ray = False


def _last_line(text: str) -> str:
    """Ray wraps the worker's exception in a traceback; its last line is the message."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"


def list_executors() -> list[str]:
    return EXECUTORS.names()


def build_executor(name: str, settings: S, *, worker_cls: type[Worker[S, O]], **options: Any) -> Executor[S, O]:
    """An executor by registry name (``serial``, ``pool``, ``ray``) running ``worker_cls(settings)``; unknown
    names list the valid ones."""
    return EXECUTORS.get(name)(settings, worker_cls=worker_cls, **options)


def map_with_cache(smiles: Sequence[str], cache: OutcomeCache[O] | None,
                   executor: Callable[[], Executor[Any, O]]) -> tuple[dict[str, O], int]:
    """Outcomes by SMILES for unique ``smiles``: those in ``cache`` (None: no cache), the rest mapped on
    ``executor()`` (called only when something is left, so workers start on first need) and stored; also how
    many came from the cache. Machine-dependent failures carry ``cacheable = False`` and are not stored."""
    outcomes: dict[str, O] = cache.get(smiles) if cache is not None else {}
    n_cached = len(outcomes)
    todo = [s for s in smiles if s not in outcomes]
    if todo:
        done = executor().map(todo)
        if cache is not None:
            cache.put(done)
        outcomes.update((o.smiles, o) for o in done)
    return outcomes, n_cached
