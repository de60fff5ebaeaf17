"""Mutant (H24): a row's quota charge counts the DTO in characters, not UTF-8 bytes.

§11: "Bytes are the uncompressed UTF-8 payload plus a fixed 512-byte row charge."  This
queue charges ``len(text) + 512``: right for ASCII DTOs, a third of the bytes for the 3-byte
characters the harness pads DTOs of a given byte size with, so the byte quotas over-admit and
each row's ``bytes`` is wrong.
"""

from hookconf.reference.delivery.queue import ROW_CHARGE, DeliveryQueue
from tests.mutants.delivery.base import mutant


class CharCounted(DeliveryQueue):
    def charge(self, text):
        return len(text) + ROW_CHARGE


factory = mutant("char-counted-charge", CharCounted)
