"""The hookconf reference runtime: a candidate like any other, written straight from the spec."""

__version__ = "0.1.0"
