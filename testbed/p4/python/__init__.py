"""The Python target, the reference backend: the IR compiled to Python source once per
program, run as the v1model pipeline behind the control-plane API."""
