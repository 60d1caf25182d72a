"""No silent skips: every way the suite can skip a test says what a user does about it.

Read from the test sources, so a new skip is held to it when it is written, not when a
machine happens to take it: each ``pytest.skip(...)`` and ``skipif(..., reason=...)`` (and
the conftest's marker for tests that need root) names a command to run, a package to
install or a variable to set. On a machine set up by ``make setup`` and run as root none
of them should apply; ``make test`` lists any that does (``-rs``) with that reason."""
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ACTIONABLE = re.compile(r"make setup|apt-get install|run `|run again|mount |set [A-Z_]+|"
                        r"CI runs as root|AXONN_PACKAGE")
SKIP = re.compile(r"(pytest\.skip\(|skipif\(|mark\.skip\(|importorskip\()(?P<rest>.{0,600})",
                  re.S)


def skips() -> list[tuple[str, str]]:
    """(file:line, the text of the skip's call) for every skip in the suite."""
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if path == Path(__file__).resolve():
            continue
        text = path.read_text()
        for m in SKIP.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append((f"{path.relative_to(TESTS)}:{line}", _call(m.group("rest"))))
    return found


def _call(rest: str) -> str:
    """The arguments of the call ``rest`` starts inside: up to its closing bracket."""
    depth = 1
    for i, ch in enumerate(rest):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return rest[:i]
    return rest


def test_every_skip_says_what_to_do():
    found = skips()
    assert len(found) >= 6                     # the check reads the skips it is meant to
    silent = [where for where, call in found if not ACTIONABLE.search(call)]
    assert not silent, f"skips without an action a user can take: {silent}"

