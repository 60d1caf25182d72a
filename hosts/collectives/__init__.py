"""A rank's collectives: the comm layer that runs them (:mod:`comm`, tier by tier through
:mod:`hierarchy`, ranks as threads in :mod:`threads`) and the descriptions a strategy
declares of them (:mod:`pattern`, what a step moves; :mod:`timing`, when it moves it)."""
