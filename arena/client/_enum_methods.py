"""Methods of the SDK's generated enums (`arena.client._generated`), one mixin per enum."""

from __future__ import annotations


class ColorMethods:
    """What a `Color` can do besides being its name."""

    @property
    def letter(self) -> str:
        """The colour's initial: R, Y, G or B."""
        return str(self)[0].upper()
