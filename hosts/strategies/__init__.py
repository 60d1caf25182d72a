"""Data-parallel training strategies: one interface (:class:`base.Strategy`), one
communication layer (:mod:`comm`)."""
