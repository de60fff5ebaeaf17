"""hookconf: a conformance harness and reference runtime for the Motrix 2.x Plugin Hook Runtime.

================  ================================================================
package           what it holds
================  ================================================================
``reference``     the reference runtime, one package per spec area (§5–§16)
``harness``       corpus loader, protocol transports, runners, oracles, reports, CLI
``faultinject``   the VFS port, a durability-modelling filesystem, crash exploration
``corpus``        data only: cases, guest plugins, the case schema
================  ================================================================
"""

__version__ = "0.1.0"
