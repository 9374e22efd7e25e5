"""Bots for Agricola: All Creatures Big and Small (see sim/acbas/bots.md)."""
