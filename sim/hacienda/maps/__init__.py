"""The printed map sides A and B as .haz files (package data: this file makes the folder a package, so that a
wheel carries them)."""
