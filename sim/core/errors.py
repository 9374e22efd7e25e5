"""The one exception type the CLI turns into a single stderr line and exit code 2."""


class MeeplabError(Exception):
    """A user-facing error: bad game, bot, parameter, player count, file... (exit code 2)."""
