"""Tokenizer and vocabulary, RNN and transformer priors, prior file I/O, training."""

from mara_chem.models.language_model import LanguageModel, Sampled
from mara_chem.models.networks import build_network, list_networks
from mara_chem.models.prior_file import PriorFileError, load_prior, save_prior
from mara_chem.models.tokenizer import UnknownTokenError, Vocabulary, tokenize

__all__ = [
    "LanguageModel", "Sampled", "build_network", "list_networks", "PriorFileError", "load_prior",
    "save_prior", "UnknownTokenError", "Vocabulary", "tokenize",
]
