"""README.md's reference of experiment keys is the one the spec models generate, and it
names every key the loader takes."""
from pathlib import Path

from testbed.experiment import reference
from testbed.experiment.spec import Experiment, Sweep, Workload

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_keys_are_the_generated_ones():
    assert reference.section_of(README.read_text()) == reference.reference(), \
        "README.md's experiment keys are stale: python -m testbed.experiment.reference " \
        "--write README.md"


def test_every_key_is_listed_with_its_unit_and_default():
    text = reference.reference()
    for model in (Experiment, Workload, Sweep):
        for name in model.model_fields:
            assert f"| `{name}` |" in text
    assert "| `bandwidth` | list of bit rate, e.g. 100Gbit | - | nominal rate of every link |" \
        in text
    assert "| `bring_up` | duration, e.g. 2ms | 120s |" in text
    assert "| `device_memory` | size, e.g. 40GiB | - |" in text
    assert "| `repetitions` | integer | 1 |" in text
    assert "| `name` | text | required |" in text


def test_the_readme_experiment_checks(tmp_path, capsys):
    """The annotated experiment of README.md, "Your first experiment", is valid."""
    from testbed.cli import main
    text = README.read_text().split("Save this as `my-experiment.yaml`:")[1]
    yaml_text = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "my-experiment.yaml"
    path.write_text(yaml_text)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 variants x 2 strategies x 1 repetition = 4 runs of 4 steps" in out
    assert "4 links: 25 Gb/s nominal, 2.5 Mb/s emulated" in out


def _shown_output(text: str, command: str) -> list[str]:
    """The lines README.md shows under ``$ COMMAND``, up to its code block's end."""
    block = text.split(f"$ {command}\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip() and line.strip() != "..."]


def test_the_readme_shows_what_check_prints(tmp_path, capsys, monkeypatch):
    """The outputs README.md shows for its experiment, and for the same file with
    `steps: four` and `repititions: 2` added at the end, are what `trainet check` prints."""
    from testbed.cli import main
    text = README.read_text()
    yaml_text = text.split("Save this as `my-experiment.yaml`:")[1].split("```yaml\n", 1)[1] \
        .split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    Path("my-experiment.yaml").write_text(yaml_text)
    Path("typo.yaml").write_text(yaml_text.replace("steps: 4 ", "steps: four")
                                 + "repititions: 2\n")
    assert main(["check", "my-experiment.yaml"]) == 0
    out = capsys.readouterr().out.replace(f"{README.parent}/", "").splitlines()
    shown = _shown_output(text, "trainet check my-experiment.yaml")
    assert shown and all(line in out for line in shown), (shown, out)
    assert main(["check", "typo.yaml"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert _shown_output(text, "trainet check typo.yaml") == err
