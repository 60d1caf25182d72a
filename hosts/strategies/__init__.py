"""Training strategies: one module each, declared once in :mod:`registry`; one interface
(:class:`base.Strategy`), one communication layer (:mod:`comm`), one description of what
a step moves (:mod:`pattern`)."""
