"""Goofspiel bots (entry point ``meeplab.bots``: ``goofspiel = "meeplab_goofspiel.bots"``)."""
