"""Hacienda bots."""
