"""The pygame floor view and procedure drills (issue 9).

``viz`` sits outside ``twin``: it reads the world through records (a sink on the record bus, or
the rows of a finished run's ledger) and acts on it only through the inbox. ``twin`` never
imports it; ``twin viz`` finds it through the ``twin.cli`` entry-point group (see
:mod:`viz.cli`), and ``python -m viz`` runs it directly.
"""

from __future__ import annotations

import os

# pygame prints a banner on import unless told not to; the viewer also never needs audio.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
