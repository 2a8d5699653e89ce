"""Offline retrosynthesis: rxn-insight's named-reaction templates, syntheseus search, a molbloom ZINC stock confirmed by an exact tier."""
