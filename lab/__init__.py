"""The lab: everything that plans, runs, stores, distributes and studies batches of games on the kernel
(``meeplab.sim.core``, which imports nothing of the lab). Pure Python: nothing here is compiled by numba.

* ``runs``: one batch from plan to disk: the runner, run folders and their lock and manifest, shards, the results
  table, the plan and its time estimate.
* ``distributed``: shards on a Dask cluster (``--workers``, ``--scheduler``), for runs and for ``quality``.
* ``studies``: what is built from many runs: experiments, SPRT, fairest values, tuning, tournaments, option values,
  quality trajectories, fingerprints.
* ``stats``: the statistics primitives the lab needs (Wilson intervals, Holm).
"""
