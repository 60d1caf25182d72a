"""Training strategies: one module each, declared once in :mod:`registry`, one interface
(:class:`base.Strategy`). Their machinery lives beside this package: hosts.collectives,
hosts.parallelism, hosts.compression, hosts.opdag."""
