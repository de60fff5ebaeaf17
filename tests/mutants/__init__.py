"""Deliberately broken candidates, one folder per spec area (as in ``reference/``).

Each module is a candidate (``tests.mutants.<area>.<name>:factory``) with one realistic bug;
``tests/harness/test_mutants.py`` runs ``hookconf run`` on each and checks that the invariant
the bug breaks is reported failing.
"""
