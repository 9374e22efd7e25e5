"""Schweinebande bots. The feature names per decision kind are in ``features.py``."""
