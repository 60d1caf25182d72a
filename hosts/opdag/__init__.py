"""The model as an operator DAG (:mod:`graph`) and the OP-Fence scheduler that cuts it
across devices (:mod:`opfence`)."""
