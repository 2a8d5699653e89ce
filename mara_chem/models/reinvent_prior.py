"""REINVENT 4 ``Reinvent`` (LSTM/GRU) model files read into, and written from, mara-chem's engine.

A REINVENT 4 prior is a ``torch.save`` dict: ``model_type = "Reinvent"``, ``vocabulary`` (token -> index,
``$`` = 0 doubling as padding, ``^`` = 1), ``tokenizer`` (a pickled ``SMILESTokenizer`` with no state),
``metadata`` (a dict, or a pickled ``ModelMetaData`` in older files), ``max_sequence_length``,
``network`` (``_embedding``, ``_rnn``, ``_linear`` weights) and ``network_params``. It is read with
``torch.load(weights_only=True)``: the two pickled REINVENT classes are replaced by inert stand-ins, so
REINVENT need not be installed and nothing in the file can run code. A REINVENT RL checkpoint (a stage's
``chkpt_file``) also pickles REINVENT's diversity filter (its scaffold memory, ``staged_learning``): every
``reinvent.*`` class it names is read as an inert stand-in as well, never imported, and is reported as not read
(:func:`load_model_file`'s ``skipped``); only the network and the vocabulary are used.

The weights are permuted into mara-chem's vocabulary order (``<pad>`` = 0, ``^`` = 1, ``$`` = 2, the rest
sorted) with an extra, always-masked ``<pad>`` row. REINVENT does not mask ``^`` in its softmax, so a
converted model masks padding only (``metadata["masked_tokens"]``) and its log-likelihoods are REINVENT's.
Writing back, a mara-chem model that masks ``^`` gets a ``^`` output bias of −1e4 (probability exp(−1e4) = 0
in float32), so REINVENT computes the same log-likelihoods as mara-chem.

One REINVENT quirk is not copied: ``Model.likelihood`` sums the NLL over the padding after ``$`` (padding
is ``$``), so REINVENT's value for a SMILES depends on the longest SMILES in its batch; mara-chem's is the
likelihood of the sequence itself (REINVENT's value for a batch of one).
"""

from __future__ import annotations

import logging
import pickle
import re
import time
import uuid
from pathlib import Path
from typing import Any

import torch

from mara_chem.atomic import save_torch_atomic
from mara_chem.models.language_model import LanguageModel
from mara_chem.models.networks import RecurrentNetwork
from mara_chem.models.tokenizer import END, PAD, START, Vocabulary

log = logging.getLogger(__name__)

REINVENT_MODEL_TYPE = "Reinvent"
START_BIAS_MASKED = -1.0e4  # exp(-1e4) underflows to 0 in float32: REINVENT then never emits ``^``
#: a mara-chem model's metadata (a stage agent's record among it) in a REINVENT model file mara-chem wrote
MARA_METADATA_KEY = "mara_chem_metadata"


class ReinventPriorError(ValueError):
    """A REINVENT model file mara-chem cannot read or a model it cannot write in REINVENT's format."""


class _PickledObject:
    """Inert stand-in for a REINVENT class pickled in a model file: keeps the state dict, runs nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # a REDUCE of the class: its arguments are kept, not run
        self.args, self.kwargs = args, kwargs

    def __setstate__(self, state: Any) -> None:
        self.__dict__.update(state if isinstance(state, dict) else {"state": state})


class _Tokenizer(_PickledObject):
    pass


class _MetaData(_PickledObject):
    pass


class _Vocabulary(_PickledObject):
    pass


_STAND_INS = [
    (_Tokenizer, "reinvent.models.reinvent.models.vocabulary.SMILESTokenizer"),
    (_Vocabulary, "reinvent.models.reinvent.models.vocabulary.Vocabulary"),
    (_MetaData, "reinvent.models.meta_data.ModelMetaData"),
    (uuid.UUID, "uuid.UUID"),
]


#: torch's weights-only refusal names the global it will not import (two wordings: not allow-listed, blocked module)
_UNSUPPORTED_GLOBAL = re.compile(r"[Uu]nsupported (?:global: )?GLOBAL (\S+)")


def unsupported_global(exc: BaseException) -> str | None:
    """The dotted name torch's weights-only unpickler refused to import, if that is why ``exc`` was raised."""
    found = _UNSUPPORTED_GLOBAL.search(str(exc))
    return found.group(1) if found else None
#: REINVENT's own classes may be read as inert stand-ins; any other global stays refused
_REINVENT_PACKAGE = "reinvent."
_MAX_STAND_INS = 64


def load_model_file(path: str | Path, skipped: list[str] | None = None) -> Any:
    """``torch.load(weights_only=True)`` of a mara-chem or REINVENT model file (REINVENT classes as stand-ins).

    A REINVENT class beyond the tokenizer, vocabulary and metadata (a RL checkpoint's diversity filter, its
    bucket counter) is read as an inert stand-in too; its dotted name is appended to ``skipped``. Any other
    class (what REINVENT never writes) is refused by torch's weights-only unpickler, as before."""
    stand_ins: list[tuple[type, str]] = list(_STAND_INS)
    extra: list[str] = []
    while True:
        try:
            with torch.serialization.safe_globals(stand_ins):
                payload = torch.load(path, map_location="cpu", weights_only=True)
        except pickle.UnpicklingError as exc:
            name = unsupported_global(exc) or ""
            if not name.startswith(_REINVENT_PACKAGE) or name in extra or len(extra) >= _MAX_STAND_INS:
                raise
            stand_ins.append((type(name.rsplit(".", 1)[-1], (_PickledObject,), {}), name))
            extra.append(name)
            continue
        if skipped is not None:
            skipped.extend(extra)
        return payload


def describe_unread(payload: dict, skipped: list[str]) -> str:
    """What of a REINVENT file mara-chem did not read (empty when it read everything it holds)."""
    parts = []
    if "staged_learning" in payload:
        parts.append("its staged-learning state (REINVENT's diversity filter memory)")
    if skipped:
        parts.append("the REINVENT objects " + ", ".join(sorted({n.rsplit(".", 1)[-1] for n in skipped})))
    return "; ".join(parts)


def is_reinvent_payload(payload: Any) -> bool:
    """True for a REINVENT 4 model dict (any model type; only ``Reinvent`` converts)."""
    return isinstance(payload, dict) and "network" in payload and "vocabulary" in payload and "format" not in payload


def _reinvent_tokens(vocabulary: Any) -> dict[str, int]:
    """token -> index of a REINVENT vocabulary (dict form, or a legacy pickled ``Vocabulary``)."""
    if isinstance(vocabulary, dict) and "tokens" in vocabulary:
        return {str(k): int(v) for k, v in vocabulary["tokens"].items()}
    if isinstance(vocabulary, _Vocabulary):
        return {k: int(v) for k, v in vocabulary._tokens.items() if isinstance(k, str)}
    raise ReinventPriorError(f"unrecognised REINVENT vocabulary of type {type(vocabulary).__name__}")


def model_from_reinvent(payload: dict, source: str = "REINVENT model", skipped: list[str] | None = None) -> LanguageModel:
    """A mara-chem ``LanguageModel`` with the REINVENT model's weights and log-likelihoods; what else the file
    holds (a RL checkpoint's diversity filter, ``skipped`` classes) is named in a warning, not read."""
    model_type = payload.get("model_type", REINVENT_MODEL_TYPE)
    if model_type != REINVENT_MODEL_TYPE:
        raise ReinventPriorError(f"{source}: REINVENT model type {model_type!r}; only 'Reinvent' (LSTM/GRU) priors convert")
    params = dict(payload.get("network_params") or {})
    if params.get("layer_normalization"):
        raise ReinventPriorError(f"{source}: layer_normalization = true is not supported by mara-chem's RNN")
    rv_index = _reinvent_tokens(payload["vocabulary"])
    missing = [t for t in (START, END) if t not in rv_index]
    if missing or PAD in rv_index:
        raise ReinventPriorError(f"{source}: vocabulary lacks {missing} or uses the reserved token {PAD!r}")
    vocabulary = Vocabulary([t for t in rv_index if t not in (START, END)])
    network = RecurrentNetwork(
        vocab_size=len(vocabulary),
        embedding_dim=int(params.get("embedding_layer_size", 256)),
        hidden_size=int(params.get("layer_size", 512)),
        num_layers=int(params.get("num_layers", 3)),
        cell=str(params.get("cell_type", "gru")).lower(),
        dropout=float(params.get("dropout", 0.0)),
        max_length=int(payload.get("max_sequence_length", 256)) - 1,  # REINVENT's length counts ``^``
    )
    weights = payload["network"]
    order = torch.tensor([rv_index[t] for t in vocabulary.tokens[1:]])  # mara rows 1.. from REINVENT rows
    state = {}
    for name, tensor in weights.items():
        tensor = tensor.float()
        if name.startswith("_rnn."):
            state["rnn." + name[len("_rnn."):]] = tensor
        elif name in ("_embedding.weight", "_linear.weight", "_linear.bias"):
            rows = torch.zeros((len(vocabulary), *tensor.shape[1:]), dtype=tensor.dtype)
            rows[1:] = tensor[order]
            state[{"_embedding.weight": "embedding.weight", "_linear.weight": "output.weight",
                   "_linear.bias": "output.bias"}[name]] = rows
        else:
            raise ReinventPriorError(f"{source}: unexpected network weight {name!r}")
    try:
        network.load_state_dict(state)
    except RuntimeError as exc:
        raise ReinventPriorError(f"{source}: weights do not fit the declared network: {exc}") from None
    own = payload.get(MARA_METADATA_KEY)  # a model mara-chem wrote: its metadata comes back
    metadata: dict[str, Any] = dict(own) if isinstance(own, dict) else {}
    metadata.update({"masked_tokens": [PAD, START] if _start_masked(weights) else [PAD],  # model_to_reinvent's inverse
                     "converted_from": f"REINVENT {REINVENT_MODEL_TYPE} model ({source})"})
    unread = describe_unread(payload, skipped or [])
    if unread:
        metadata["not_read"] = unread
        log.warning("%s: read the network and vocabulary only; not read (nothing in it was run): %s", source, unread)
    return LanguageModel(network, vocabulary, metadata)


def _start_masked(weights: dict) -> bool:
    """Whether REINVENT's ``^`` row (index 1) is the never-emitted row :func:`model_to_reinvent` writes for a
    model that masks ``^``: zero weights and a bias of START_BIAS_MASKED."""
    bias, weight = weights.get("_linear.bias"), weights.get("_linear.weight")
    return (bias is not None and weight is not None and len(bias) > 1 and float(bias[1]) == START_BIAS_MASKED
            and not bool(weight[1].any()))


def model_to_reinvent(model: LanguageModel, data_source: str = "mara-chem") -> dict:
    """REINVENT 4's save dict for a mara-chem RNN model (REINVENT reads it with ``create_adapter``)."""
    hp = model.network.hyperparameters()
    if model.network.name != "rnn":
        raise ReinventPriorError(f"REINVENT's 'Reinvent' model is an RNN; this prior is a {model.network.name}")
    vocab = model.vocabulary
    rv_tokens = [END, START] + [t for t in vocab.tokens if t not in (PAD, START, END)]
    order = torch.tensor([vocab.index[t] for t in rv_tokens])
    state = {k: v.detach().cpu().float() for k, v in model.network.state_dict().items()}
    network = {"_embedding.weight": state["embedding.weight"][order].clone(),
               "_linear.weight": state["output.weight"][order].clone(),
               "_linear.bias": state["output.bias"][order].clone()}
    network.update({"_rnn." + k[len("rnn."):]: v.clone() for k, v in state.items() if k.startswith("rnn.")})
    if vocab.start_idx in model._masked_idx:  # mara-chem never emits ``^``: REINVENT must not either
        network["_linear.weight"][1] = 0.0
        network["_linear.bias"][1] = START_BIAS_MASKED
    return {
        "model_type": REINVENT_MODEL_TYPE,
        "version": 1,
        "metadata": {"hash_id": None, "hash_id_format": None, "model_id": uuid.uuid4().hex,
                     "origina_data_source": data_source, "creation_date": time.time(),
                     "date_format": "UNIX epoch", "model_id_format": "uuid.uuid4", "updates": [],
                     "comments": ["converted by mara-chem"]},
        "vocabulary": {"tokens": {t: i for i, t in enumerate(rv_tokens)}, "pad_token": 0, "bos_token": 1,
                       "eos_token": 2, "unk_token": None},
        "max_sequence_length": hp["max_length"] + 1,
        "network": network,
        "network_params": {"dropout": hp["dropout"], "layer_size": hp["hidden_size"], "num_layers": hp["num_layers"],
                           "cell_type": hp["cell"], "embedding_layer_size": hp["embedding_dim"],
                           "layer_normalization": False},
    }


def with_hash_id(save_dict: dict) -> dict:
    """``save_dict`` with REINVENT's hash ID in its metadata (``reinvent/models/meta_data.py``: xxh3-128 of the
    pickled dict, keys sorted, network as numpy arrays, hash fields None), so REINVENT checks it instead of
    warning that the file has none. Without xxhash (a REINVENT dependency, not mara-chem's) it stays None."""
    try:
        import xxhash
    except ImportError:
        return save_dict
    hashed = {k: v for k, v in sorted(save_dict.items())}
    hashed["metadata"] = {**save_dict["metadata"], "hash_id": None, "hash_id_format": None}
    hashed["network"] = {k: v.cpu().numpy() for k, v in save_dict["network"].items()}
    digest = xxhash.xxh3_128_hexdigest(pickle.dumps(hashed))
    save_dict["metadata"] = {**save_dict["metadata"], "hash_id": digest,
                             "hash_id_format": f"xxhash.xxh3_128_hex {xxhash.VERSION}"}
    return save_dict


def save_reinvent_prior(model: LanguageModel, path: str | Path, data_source: str = "mara-chem",
                        **metadata: Any) -> Path:
    """Write ``model`` as a REINVENT 4 prior file (with REINVENT's hash ID), atomically (temp file + rename).
    ``metadata`` (plain data, e.g. a stage agent's ``rl_agent`` record) joins the model's own under one top-level
    key, which REINVENT's loaders ignore (as mara-chem ignores REINVENT's ``staged_learning``) and
    :func:`model_from_reinvent` reads back."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_dict = model_to_reinvent(model, data_source)
    if metadata:
        kept = {k: v for k, v in model.metadata.items() if k not in ("masked_tokens", "converted_from")}
        save_dict[MARA_METADATA_KEY] = {**kept, **metadata}
    save_torch_atomic(with_hash_id(save_dict), path)
    return path


def teach_end_after_end(model: LanguageModel, smiles: list[str], chain: int = 12, steps: int = 40) -> float:
    """Make ``$`` followed by ``$`` near-certain in ``model`` (in place), as in a prior REINVENT trained.

    REINVENT's likelihood counts the padding after ``$`` (padding is ``$``), and its sampler stops only once
    every row has emitted ``$`` in the same step; a prior trained elsewhere keeps sampling after ``$`` up to
    the maximum length, so REINVENT would both mis-score it and sample slower than with its own priors. Only
    the input embedding of ``$`` changes (Adam on ``chain`` steps after the end of ``smiles``): ``$`` is never
    an input before the end, so every SMILES keeps its log-likelihood. Returns mean log p($ | $...)."""
    vocab, net = model.vocabulary, model.network
    if not isinstance(net, RecurrentNetwork):
        raise ReinventPriorError(f"REINVENT's format holds recurrent networks only, not {type(net).__name__}")
    tokens = vocab.encode_batch(smiles)
    last = (tokens != vocab.pad_idx).sum(dim=1) - 2  # position of the last SMILES token (before "$")
    with torch.no_grad():
        state, states = None, []
        for t in range(int(last.max()) + 1):
            _, state = net.step(tokens[:, t], state)
            states.append(state)
        rows = range(len(smiles))
        if isinstance(state, tuple):  # LSTM (h, c)
            start = [torch.stack([states[int(last[i])][k][:, i] for i in rows], dim=1) for k in range(2)]
        else:
            start = torch.stack([states[int(last[i])][:, i] for i in rows], dim=1)
    end_embedding = torch.nn.Parameter(net.embedding.weight[vocab.end_idx].detach().clone())
    optimizer = torch.optim.Adam([end_embedding], lr=0.2)
    for _ in range(steps):
        state = tuple(start) if isinstance(start, list) else start
        loss = torch.zeros(())
        for _ in range(chain):
            hidden, state = net.rnn(end_embedding.expand(len(smiles), 1, -1), state)
            logp = torch.log_softmax(model._mask_special(net.output(hidden[:, 0])), dim=-1)[:, vocab.end_idx]
            loss = loss - logp.mean() / chain
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        net.embedding.weight[vocab.end_idx] = end_embedding
    return -float(loss.detach())
