# The two commands of the README: `make demo` and `make test` (both as root).
# Each installs what is missing first (vagrant/install.sh), so either works on a fresh machine.
.PHONY: setup demo test clean

setup:
	@bash vagrant/install.sh

demo: setup
	@d=results/demo-$$(date +%Y%m%d-%H%M%S); \
	.venv/bin/trainet run experiments/demo.yaml -o $$d && .venv/bin/trainet report $$d

test: setup
	.venv/bin/python -m pytest -q -rs ; rc=$$?; [ $$rc -eq 5 ] && echo "no tests collected" && rc=0; exit $$rc

clean:
	-.venv/bin/trainet down
	rm -rf .venv results
