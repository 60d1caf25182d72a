"""The syntax tree lowered to the one typed IR (testbed/p4/ir.py) in one walk in source
order: names, types, widths, constants and the inlining of sub-blocks."""
