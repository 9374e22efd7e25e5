"""Shards on a Dask cluster: ``--workers N`` (a local cluster) or ``--scheduler ADDRESS`` (``cluster``), and
``meeplab quality``'s trajectories the same way (``quality_cluster``)."""
