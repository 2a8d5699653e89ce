"""Reinforcement learning: the staged-learning loop, learning strategies, diversity filters, replay memory."""
