"""The ``trainet bench`` benchmarks: each prints its figures next to a baseline measured in
the same run, and the ratio. They drive whole layers (a target, a switch process, a
network, workers), so they sit above everything they measure."""
