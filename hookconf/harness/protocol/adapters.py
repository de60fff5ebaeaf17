"""Where the adapter kits are: programs in other languages that serve a runtime module over
protocol v1, so an implementer writes only the mapping from operations to their functions.

A kit lives in the repository's ``adapters/<language>/`` folder and travels inside the
installed package as ``hookconf/adapters/<language>/`` (the wheel carries it), so the kit an
installed hookconf names always speaks that hookconf's protocol.  ``hookconf adapter node``
prints the path.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["KITS", "adapter_path"]

#: Each kit's language → its entry program, inside ``adapters/<language>/``.
KITS: dict[str, str] = {"node": "adapter.js"}

_PACKAGE = Path(__file__).resolve().parents[2]


def adapter_path(language: str, *, package: Path = _PACKAGE) -> Path:
    """The entry program of ``language``'s kit, as an absolute path.

    Looked up first inside the installed package (``<package>/adapters/<language>/``, where a
    wheel puts it), then in the clone the package runs from (``<package>/../adapters/…``, an
    editable install or a checkout on the import path).

    Raises:
        KeyError: no kit for ``language`` (the message lists the kits).
        FileNotFoundError: the kit is in neither place (an installation without it).
    """
    if language not in KITS:
        raise KeyError(f"no adapter kit for {language!r}; kits: {', '.join(sorted(KITS))}")
    places = [package / "adapters" / language / KITS[language],
              package.parent / "adapters" / language / KITS[language]]
    for place in places:
        if place.is_file():
            return place
    raise FileNotFoundError(f"the {language} adapter kit is not installed (looked in {places[0].parent} "
                            f"and {places[1].parent})")
