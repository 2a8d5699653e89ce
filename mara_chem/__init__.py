"""mara-chem: goal-directed de novo molecular design with diversity-preserving RL strategies."""

__version__ = "0.1.0"
