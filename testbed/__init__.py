"""trainet: a network-emulation testbed for distributed training over programmable networks."""

__version__ = "0.1.0"
