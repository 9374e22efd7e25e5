"""One batch from plan to disk: the checked run plan (``plan``) and its time estimate (``estimate``), the runner
(``runner``), the run folder's safety (``rundir``: lock, manifest, ``run.json``; its fields in ``SCHEMA.md``),
shards (``shards``) and the results table (``results``)."""
