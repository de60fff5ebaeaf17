"""The hookconf harness: corpus loader, candidate protocol, runners, oracles, reports and CLI."""

__version__ = "0.1.0"
