"""Package layout (the rest of the metadata is in pyproject.toml).

``meeplab`` is the one top-level import name an install adds. The repository's top-level folders
``sim/``, ``strategies/``, ``lab/``, ``analysis/`` and ``reports/`` are installed as its subpackages
``meeplab.sim``, ``meeplab.strategies``, ``meeplab.lab``, ``meeplab.analysis`` and ``meeplab.reports``
(``package_dir``);
nothing edits ``sys.path``, and ``import sim`` finds nothing. Every package under them is found at build
time, so a new game folder or bot folder needs no change here.
"""

from setuptools import find_packages, setup

LAYERS = ("sim", "strategies", "lab", "analysis", "reports")  # folders at the repository's root, under meeplab.
packages = find_packages(include=["meeplab", "meeplab.*"])
package_dir = {"meeplab": "meeplab"}
for folder in LAYERS:
    for pkg in find_packages(include=[folder, f"{folder}.*"]):
        packages.append(f"meeplab.{pkg}")
    package_dir[f"meeplab.{folder}"] = folder

setup(packages=packages, package_dir=package_dir)
