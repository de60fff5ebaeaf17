"""Fault injection for hookconf: the VFS port, a durability-modelling filesystem, crash exploration."""
