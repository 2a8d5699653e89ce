"""Maximum-likelihood training of a SMILES prior, with per-epoch checkpoints and resume after a kill."""

from __future__ import annotations

import hashlib
import logging
import math
import os
import random
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from multiprocessing import Pool
from pathlib import Path

import torch
from tqdm import tqdm

from mara_chem.chem.smiles import canonicalize, randomize
from mara_chem.chem.smiles_file import SmilesFileError, open_text, read_smiles_file  # noqa: F401  (read_smiles_file's old home)
from mara_chem.models.language_model import LanguageModel
from mara_chem.models.networks import build_network
from mara_chem.models.prior_file import load_prior, save_prior
from mara_chem.models.rng import rng_state, set_rng_state
from mara_chem.models.tokenizer import Vocabulary, tokenize
from mara_chem.text import first_line

log = logging.getLogger(__name__)


@dataclass
class PreparedData:
    train: list[str]
    valid: list[str]
    vocabulary: Vocabulary
    counts: dict[str, int] = field(default_factory=dict)
    sha256: str = ""
    unspellable: list[str] = field(default_factory=list)  # valid SMILES with tokens outside the vocabulary


@dataclass
class TrainConfig:
    model_type: str = "rnn"
    hyperparameters: dict = field(default_factory=dict)
    batch_size: int = 128
    learning_rate: float = 1e-3
    lr_decay: float | None = None  # x this after every epoch (REINVENT-style step decay), on top of plateau halving
    max_epochs: int = 10
    epoch_size: int | None = None  # SMILES per epoch; None = the whole training split
    patience: int = 3
    # an epoch whose validation NLL falls by less than this (nats) counts against ``patience``: "converged"
    # means the last epochs no longer pay for themselves, not only that they stopped improving at all
    min_improvement: float = 1e-4
    valid_fraction: float = 0.01
    max_valid: int = 10_000
    max_length: int = 100  # tokens, not counting start/end
    min_token_count: int = 10
    max_hours: float | None = None
    seed: int = 0
    device: str = "cpu"
    half_precision: bool = False  # fp16 weights in the written prior: keeps a 3x512 LSTM under 16 MiB
    randomize: bool = False  # train on a fresh random SMILES of each molecule every epoch (augmentation)
    quality_samples: int = 1000  # samples drawn for validity/uniqueness when a best model is saved

    def __post_init__(self) -> None:
        """Refuse a setting that would train nothing or diverge, before any data is read."""
        checks = [
            ("learning rate", self.learning_rate, 0 < self.learning_rate <= 1, "in (0, 1]"),
            ("lr decay", self.lr_decay, self.lr_decay is None or 0 < self.lr_decay <= 1, "in (0, 1]"),
            ("min improvement", self.min_improvement, 0 <= self.min_improvement < math.inf, "a finite number of nats >= 0"),
            ("batch size", self.batch_size, self.batch_size >= 1, "at least 1"),
            ("epochs", self.max_epochs, self.max_epochs >= 1, "at least 1"),
            ("patience", self.patience, self.patience >= 1, "at least 1"),
            ("epoch size", self.epoch_size, self.epoch_size is None or self.epoch_size >= 1, "at least 1"),
            ("max hours", self.max_hours, self.max_hours is None or 0 < self.max_hours <= 10_000,
             "in (0, 10000]"),
            ("max length", self.max_length, 1 <= self.max_length <= 10_000, "in [1, 10000]"),
            ("min token count", self.min_token_count, self.min_token_count >= 1, "at least 1"),
            ("dropout", self.hyperparameters.get("dropout", 0.0),
             0 <= self.hyperparameters.get("dropout", 0.0) < 1, "in [0, 1)"),
        ]
        for name, value, ok, bound in checks:  # NaN fails every comparison, so it is refused too
            if not ok:
                raise ValueError(f"prior training: {name} must be {bound}, got {value}")


def prepare_data(raw: list[str], cfg: TrainConfig, processes: int | None = None,
                 vocabulary: Vocabulary | None = None, valid_raw: list[str] | None = None) -> PreparedData:
    """Canonicalise, de-duplicate, filter by vocabulary and length; every drop is counted.

    Without ``vocabulary`` one is built from tokens seen at least ``min_token_count`` times (a new prior);
    with it (fine-tuning an existing prior) SMILES it cannot spell are dropped, counted and kept in
    ``unspellable``. ``valid_raw`` gives a separate validation set instead of a split of ``raw``.
    """
    counts: Counter[str] = Counter(input=len(raw))
    unique = _canonical_unique(raw, counts, processes)
    token_lists = [tokenize(s) for s in unique]
    too_long = [len(t) > cfg.max_length for t in token_lists]
    counts["too_long"] = sum(too_long)
    if vocabulary is None:
        token_counts = Counter(t for toks, long in zip(token_lists, too_long) if not long for t in toks)
        vocabulary = Vocabulary([t for t, c in token_counts.items() if c >= cfg.min_token_count])
    kept, unspellable = [], []
    for smi, toks, long in zip(unique, token_lists, too_long):
        if long:
            continue
        if any(t not in vocabulary.index for t in toks):
            counts["rare_token"] += 1
            unspellable.append(smi)
            continue
        kept.append(smi)
    counts["kept"] = len(kept)
    rng = random.Random(cfg.seed)
    if valid_raw is None:
        digest = hashlib.sha256("\n".join(kept).encode()).hexdigest()
        rng.shuffle(kept)
        n_valid = min(cfg.max_valid, max(1, int(len(kept) * cfg.valid_fraction)))
        train, valid = kept[n_valid:], kept[:n_valid]
    else:
        held = prepare_data(valid_raw, cfg, processes, vocabulary)
        valid = held.train + held.valid
        held_out = set(valid)
        train = [s for s in kept if s not in held_out]
        counts["in_validation_set"] = len(kept) - len(train)
        counts["validation_dropped"] = held.counts["input"] - len(valid)
        digest = hashlib.sha256(("\n".join(train) + "\n\n" + "\n".join(valid)).encode()).hexdigest()
        rng.shuffle(train)
    return PreparedData(train=train, valid=valid, vocabulary=vocabulary, counts=dict(counts), sha256=digest,
                        unspellable=unspellable)


def _canonical_unique(raw: list[str], counts: Counter[str], processes: int | None) -> list[str]:
    if len(raw) < 20_000:  # a process pool costs more than it saves on a fine-tuning series
        canon = [canonicalize(s) for s in raw]
    else:
        with Pool(processes or max(1, (os.cpu_count() or 1))) as pool:
            canon = pool.map(canonicalize, raw, chunksize=4096)
    valid = [c for c in canon if c]
    counts["invalid"] = len(raw) - len(valid)
    unique = list(dict.fromkeys(valid))
    counts["duplicate"] = len(valid) - len(unique)
    return unique


def _randomized(smiles: list[str], vocabulary: Vocabulary, rng: random.Random) -> list[str]:
    """A random SMILES of each molecule; the canonical one where the random one needs an unknown token."""
    out = []
    for smi in smiles:
        alt = randomize(smi, rng.randrange(2**31))
        out.append(alt if alt and not vocabulary.unknown_tokens(alt) else smi)
    return out


def _batches(smiles: list[str], batch_size: int, rng: random.Random) -> list[list[str]]:
    """Shuffled batches of similar length (sorted inside chunks of 50 batches) to cut padding."""
    order = smiles[:]
    rng.shuffle(order)
    chunk = batch_size * 50
    batches = []
    for i in range(0, len(order), chunk):
        part = sorted(order[i : i + chunk], key=len)
        batches.extend(part[j : j + batch_size] for j in range(0, len(part), batch_size))
    rng.shuffle(batches)
    return batches


def nll_loss(model: LanguageModel, smiles: list[str]) -> torch.Tensor:
    """Mean per-sequence negative log-likelihood."""
    return -model.log_likelihood(smiles).mean()


@torch.no_grad()
def validation_loss(model: LanguageModel, smiles: list[str], batch_size: int = 512) -> float:
    model.network.eval()
    total = 0.0
    for i in range(0, len(smiles), batch_size):
        chunk = smiles[i : i + batch_size]
        total += float(-model.log_likelihood(chunk).sum())
    model.network.train()
    return total / max(1, len(smiles))


@torch.no_grad()
def sample_quality(model: LanguageModel, n: int = 1000, batch_size: int = 500) -> dict[str, float]:
    """Validity and uniqueness (among valid) of n fresh samples."""
    smiles: list[str] = []
    while len(smiles) < n:
        smiles.extend(model.sample(min(batch_size, n - len(smiles))).smiles)
    canon = [canonicalize(s) for s in smiles]
    valid = [c for c in canon if c]
    return {"validity": len(valid) / n, "uniqueness": len(set(valid)) / max(1, len(valid)), "n_samples": n}


def _checkpoint_path(out: Path) -> Path:
    return out.with_name(out.name + ".ckpt")


def train_prior(data: PreparedData, cfg: TrainConfig, out: str | Path, resume: bool = True,
                initial: LanguageModel | None = None, metadata: dict | None = None) -> LanguageModel:
    """Train until early stopping, max_epochs or max_hours; the best-validation model is written to ``out``.

    ``initial`` fine-tunes an existing model (transfer learning) instead of a new network; ``metadata`` is
    added to the written prior's record.
    """
    out = Path(out)
    torch.manual_seed(cfg.seed)
    if initial is None:
        hp = {"max_length": cfg.max_length + 2, **cfg.hyperparameters}
        network = build_network(cfg.model_type, vocab_size=len(data.vocabulary), **hp)
        model = LanguageModel(network, data.vocabulary).to(cfg.device)
    else:
        if initial.vocabulary != data.vocabulary:
            raise ValueError("the data were prepared with another vocabulary than the model's")
        model = initial.to(cfg.device)
        network = model.network
    optimizer = torch.optim.Adam(network.parameters(), lr=cfg.learning_rate)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=1)
    state = {"epoch": 0, "best_valid": math.inf, "bad_epochs": 0, "elapsed_s": 0.0, "history": []}
    ckpt_path = _checkpoint_path(out)
    rng = random.Random(cfg.seed)
    if resume and ckpt_path.exists():
        ckpt = _load_training_checkpoint(ckpt_path)
        if ckpt["data_sha256"] != data.sha256 or ckpt["vocabulary"] != data.vocabulary.tokens:
            raise ValueError(f"checkpoint {ckpt_path} was made from other data; remove it or use --no-resume")
        network.load_state_dict(ckpt["network"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        state = ckpt["state"]
        if "rng" in ckpt:  # dropout masks, sampling and shuffles continue exactly as without the kill
            set_rng_state(ckpt["rng"])
            rng.setstate(ckpt["epoch_rng"])
        else:
            log.warning("%s predates saved RNG states: shuffles are replayed, dropout and sampling are not",
                        ckpt_path)
            for _ in range(state["epoch"]):
                rng.random()
        log.info("resumed from %s after epoch %d", ckpt_path, state["epoch"])
    network.train()
    while state["epoch"] < cfg.max_epochs and state["bad_epochs"] < cfg.patience:
        if cfg.max_hours is not None and state["elapsed_s"] >= cfg.max_hours * 3600:
            log.info("time budget of %.2f h reached", cfg.max_hours)
            break
        epoch_rng = random.Random(rng.random())
        train = data.train if cfg.epoch_size is None else epoch_rng.sample(data.train, min(cfg.epoch_size, len(data.train)))
        if cfg.randomize:
            train = _randomized(train, data.vocabulary, epoch_rng)
        start = time.monotonic()
        lr_used = optimizer.param_groups[0]["lr"]
        bar = tqdm(_batches(train, cfg.batch_size, epoch_rng), desc=f"epoch {state['epoch'] + 1}", unit="batch",
                   mininterval=30, disable=False)  # also to log files: progress of long CPU epochs
        running = None
        for batch in bar:
            loss = nll_loss(model, batch)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(network.parameters(), 1.0)
            optimizer.step()
            value = loss.item()
            running = value if running is None else 0.98 * running + 0.02 * value
            bar.set_postfix(nll=f"{running:.2f}", refresh=False)  # refresh only every mininterval
        valid_loss = validation_loss(model, data.valid)
        scheduler.step(valid_loss)
        if cfg.lr_decay is not None:
            for group in optimizer.param_groups:
                group["lr"] *= cfg.lr_decay
        state["epoch"] += 1
        state["elapsed_s"] += time.monotonic() - start
        state["history"].append({"epoch": state["epoch"], "train_nll": running, "valid_nll": valid_loss, "lr": lr_used,
                                 "seconds": round(time.monotonic() - start, 1)})
        log.info("epoch %d: train NLL %.3f, valid NLL %.3f, lr %.3g", state["epoch"], running or float("nan"),
                 valid_loss, lr_used)
        improvement = state["best_valid"] - valid_loss
        if improvement > 1e-4:
            state["best_valid"] = valid_loss
            _save_final(model, data, cfg, state, out, metadata or {})
        state["bad_epochs"] = 0 if improvement >= cfg.min_improvement else state["bad_epochs"] + 1
        torch.save({"network": network.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "state": state, "data_sha256": data.sha256,
                    "vocabulary": data.vocabulary.tokens, "rng": rng_state(), "epoch_rng": rng.getstate()},
                   ckpt_path.with_suffix(".tmp"))
        os.replace(ckpt_path.with_suffix(".tmp"), ckpt_path)
    return load_prior(out, cfg.device)


def _load_training_checkpoint(path: Path) -> dict:
    """Plain data only (``weights_only=True``): a planted file cannot run code; refusals name the file."""
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # corrupt, truncated or carrying code: all mean the same here
        raise ValueError(f"{path} is not a readable training checkpoint (corrupt, truncated or carrying code): "
                         f"{first_line(str(exc))[:200]}; remove it or use --no-resume") from None


def _save_final(model: LanguageModel, data: PreparedData, cfg: TrainConfig, state: dict, out: Path,
                metadata: dict) -> None:
    quality = sample_quality(model, n=cfg.quality_samples)
    model.network.train()
    save_prior(
        model, out, half_precision=cfg.half_precision,
        training_data_sha256=data.sha256,
        training_data_size=len(data.train),
        validation_size=len(data.valid),
        data_counts=data.counts,
        epochs=state["epoch"],
        validation_nll=state["best_valid"],
        train_seconds=round(state["elapsed_s"], 1),
        history=list(state["history"]),
        config={k: v for k, v in asdict(cfg).items()},
        **{f"save_{k}": v for k, v in quality.items()},
        **metadata,
    )
