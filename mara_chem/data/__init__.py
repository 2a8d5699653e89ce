"""Data sets the project fetches from package registries (no other network access is assumed)."""
