"""Programs that run on emulated hosts: collectives, in-network all-reduce."""
