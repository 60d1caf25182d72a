"""Model parallelism as the strategies use it: layouts of ranks as data (:mod:`layout`
DP x PP x TP, :mod:`grid` AxoNN's 4D grid), pipeline schedules (:mod:`pipeline`) and the
tensor-parallel blocks (:mod:`tensor_parallel`, :mod:`grid_layers`)."""
