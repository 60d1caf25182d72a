"""trainet's P4_16 toolchain, one sub-package per stage: ``frontend`` (source to syntax
tree) -> ``lowering`` (syntax tree to the one typed IR, ``ir.py``) -> the targets:
``python`` (the reference; ``psa`` extends it), ``native`` (C), both emitters of the walk
in ``walk.py``; beside them ``bmv2`` (BMv2 JSON into the same IR), ``stf``, ``p4info.py``,
and ``targets.py``, the one choice of target. pyproject.toml's import contract keeps
each stage from importing a later one."""
