"""Mutation testing of arena's core modules (`make mutation`, `python -m mutation`).

Each module listed in `modules.toml` is mutated by Cosmic Ray one small change at a
time, and only the tests that cover it are run against each mutant: a mutant the
tests notice is killed, one they do not notice survived. A survivor that changes
nothing a caller could see is written down in `equivalent.toml` with the reason, and
is left out of the score; every other survivor is a gap in the tests.
"""
