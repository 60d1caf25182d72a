"""The native backend of the P4 target: the IR in C, compiled at load (see cgen.py)."""
