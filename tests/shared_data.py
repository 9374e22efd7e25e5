"""The one place the tests find ``../shared``: the folder beside the checkout that holds the rule books and the
83 community Hacienda maps (CC BY 4.0, used from there, never copied in). CI has it; a checkout without it skips
the tests marked :data:`needs_shared` (and only those), each with the same reason."""

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
COMMUNITY_MAPS = SHARED / "maps" / "hacienda"

needs_shared = pytest.mark.skipif(
    not COMMUNITY_MAPS.is_dir(), reason=f"needs ../shared (community maps folder {COMMUNITY_MAPS} not present)"
)
