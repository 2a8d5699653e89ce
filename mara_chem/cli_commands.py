"""Registration hook for the RL, metrics and report sub-commands (filled as those modules land)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    return None
