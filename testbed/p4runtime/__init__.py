"""P4Runtime vocabulary shared by the switch's server and the controllers' client:
values as people write them (``values``) and messages as P4Runtime carries them
(``convert``)."""
