"""Play against the bots in the browser (``meeplab play``): :mod:`.table` (one game at the table and what each seat
may see), :mod:`.saved` (saved games: resume, ``meeplab view FILE``), :mod:`.server` (the Starlette app and its JSON
API), :mod:`.engine` (the forward model stepped from Python). Guide: ``docs/playtest.md``."""
