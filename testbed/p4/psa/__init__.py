"""PSA on the Python target: code generation for PSA_Switch's six blocks, its packet path
and its externs."""
