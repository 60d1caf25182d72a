"""Execution traces in MLCommons Chakra's format (``trainet trace export``): what each
rank did in a measured run, or what the analytical model predicts it does at any scale,
as per-rank files that simulators such as ASTRA-sim read."""
