"""Controllers that program the switches of a running network over P4Runtime."""
