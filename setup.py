"""Package layout (the rest of the metadata is in pyproject.toml).

``meeplab`` is the one top-level import name an install adds. The repository's packages ``sim``,
``strategies`` and ``reports`` are installed inside it, as ``meeplab/_lab/sim`` and so on, so that
these generic names never land at the top of site-packages (where they would overwrite or shadow
other distributions' files); ``import meeplab`` puts ``meeplab/_lab`` on ``sys.path`` and the engines
import each other by their usual names. Every package under them is found at build time, so a new
game folder or bot folder needs no change here.
"""
from setuptools import find_packages, setup

LAB = ("sim", "strategies", "reports")
lab = find_packages(include=[f"{p}" for p in LAB] + [f"{p}.*" for p in LAB])

setup(
    packages=["meeplab"] + [f"meeplab._lab.{p}" for p in lab],
    package_dir={"meeplab": "meeplab", **{f"meeplab._lab.{p}": p for p in LAB}},
)
