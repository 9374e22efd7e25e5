"""A bot module anywhere (a plugin's included) may name either kernel search with SEARCH = "rollout" or "ismcts"
without importing the search first: the game registry, which every game lookup goes through, loads both."""

import subprocess
import sys


def test_the_registry_loads_both_searches():
    code = (
        "import sys; import meeplab.sim.core.registry; from meeplab.sim.core.bots import SEARCH_ALGOS; "
        "print(sorted(SEARCH_ALGOS), 'meeplab.sim.core.ismcts' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['ismcts',", "'rollout']", "True"]
