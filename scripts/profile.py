#!/usr/bin/env python
"""Play a batch under Linux ``perf`` with numba's functions named (a perf map of the JIT code).

numba's machine code has no symbols that ``perf`` can see, so a profile of an engine shows bare addresses. This
script loads (or compiles) the engine, plays a warm-up batch, writes ``/tmp/perf-<pid>.map`` with every compiled
function of ``sim``/``strategies`` that it can find (module.function, from numba's own symbol table; a function
linked into several callers is named after one of them), and then plays the timed batch:

    perf record -F 999 -o /tmp/p.data python scripts/profile.py --game hacienda --players 3 --bots greedy --games 10000
    perf report -i /tmp/p.data --sort sym --stdio | head -40

The samples of start-up (imports, cache loads) count too; compare the numba functions among themselves.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def short_name(symbol: str) -> str:
    """``_ZN7meeplab3sim8hacienda6values11best_valuesB3v22...`` -> ``meeplab.sim.hacienda.values.best_values`` (numba's
    Itanium-style names: length-prefixed parts, then the ABI tag and the argument types)."""
    if not symbol.startswith("_ZN"):
        return symbol
    rest, parts = symbol[3:], []
    while rest[:1].isdigit():
        n = re.match(r"\d+", rest).group(0)
        rest = rest[len(n) :]
        parts.append(rest[: int(n)])
        rest = rest[int(n) :]
    return ".".join(parts) or symbol


def write_perf_map(path: str) -> int:
    """Write the perf map of every compiled overload of every numba dispatcher in our modules; returns the
    number of symbols (sizes: up to the next symbol's address)."""
    from numba.core.registry import CPUDispatcher

    addresses: dict[int, str] = {}
    seen: set[int] = set()
    for name, module in list(sys.modules.items()):
        if not name.startswith(("meeplab.sim.", "meeplab.strategies.")) or module is None:
            continue
        for value in list(vars(module).values()):
            if not isinstance(value, CPUDispatcher) or id(value) in seen:
                continue
            seen.add(id(value))
            for cres in value.overloads.values():
                library = cres.library
                engine = library._codegen._engine
                for llmod in (getattr(library, "_final_module", None), getattr(library, "_shared_module", None)):
                    if llmod is None:
                        continue
                    for fn in llmod.functions:
                        if fn.is_declaration:
                            continue
                        try:
                            address = engine.get_function_address(fn.name)
                        except Exception:  # not emitted (inlined everywhere)
                            continue
                        if address:
                            addresses.setdefault(address, short_name(fn.name))
    items = sorted(addresses.items())
    from meeplab.sim.core.files import atomic_writer

    with atomic_writer(path, "w") as fh:
        for k, (address, name) in enumerate(items):
            size = min(items[k + 1][0] - address, 1 << 20) if k + 1 < len(items) else 4096
            fh.write(f"{address:x} {size:x} {name}\n")
    return len(items)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", required=True)
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--bots", default="greedy", help="comma-separated lineup (names cycle over the seats)")
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    import numba

    from meeplab.sim.core.bots import make_lineup
    from meeplab.sim.core.registry import get_game

    numba.set_num_threads(args.threads)
    game = get_game(args.game)
    players = args.players or game.default_players
    ctx = game.prepare(game.params.resolve({}))
    lineup = make_lineup(game.id, args.bots.split(","), players, True)
    game.play(ctx, lineup, args.seed, 0, 64, players)
    n = write_perf_map(f"/tmp/perf-{os.getpid()}.map")
    print(f"perf map: /tmp/perf-{os.getpid()}.map ({n} symbols)", file=sys.stderr)
    t = time.perf_counter()
    game.play(ctx, lineup, args.seed, 10**6, args.games, players)
    dt = time.perf_counter() - t
    print(f"{args.games} games in {dt:.2f} s ({dt / args.games * 1e6:.1f} us per game, {args.threads} thread(s))")


if __name__ == "__main__":
    main()
