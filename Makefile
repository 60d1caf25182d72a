# The two commands of the README: `make demo` and `make test`. Each installs what is missing
# first (vagrant/install.sh), so either works on a fresh machine. Both need root: run as root
# they run as they are, run as another user they go through sudo.
.PHONY: setup demo test clean

# sudo keeps the variables that say where torch and the other packages come from.
KEEP_ENV := TRAINET_TORCH,TRAINET_TORCH_INDEX,PIP_INDEX_URL,PIP_EXTRA_INDEX_URL,PIP_FIND_LINKS,$\
	PIP_CONFIG_FILE,http_proxy,https_proxy,no_proxy,HTTP_PROXY,HTTPS_PROXY,NO_PROXY
ROOT := $(if $(filter 0,$(shell id -u)),,sudo --preserve-env=$(KEEP_ENV))

setup:
	@[ -z "$(ROOT)" ] || command -v sudo >/dev/null || \
		{ echo "error: trainet needs root: run make as root, or install sudo" >&2; exit 2; }
	@$(ROOT) bash vagrant/install.sh

demo: setup
	@d=results/demo-$$(date +%Y%m%d-%H%M%S); \
	$(ROOT) .venv/bin/trainet run experiments/demo.yaml -o $$d && $(ROOT) .venv/bin/trainet report $$d

# PYTEST_ARGS narrows the run, e.g. make test PYTEST_ARGS='-m "not slow"'
test: setup
	$(ROOT) .venv/bin/python -m pytest -q -rs $(PYTEST_ARGS) ; rc=$$?; [ $$rc -eq 5 ] && echo "no tests collected" && rc=0; exit $$rc

clean:
	-$(ROOT) .venv/bin/trainet down
	rm -rf .venv .venv-clients results
