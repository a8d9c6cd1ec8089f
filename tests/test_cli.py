"""The synthetic demo (``sparseboost demo``)."""

import json

import pytest
from sparseboost.cli import main


@pytest.mark.parametrize("split_search", ["exhaustive", "group_testing"])
def test_demo_finds_the_relevant_features(capsys, tmp_path, split_search):
    path = tmp_path / "model.json"
    argv = [
        "demo",
        "--n-samples",
        "3000",
        "--n-features",
        "60",
        "--n-estimators",
        "40",
        "--split-search",
        split_search,
        "--save",
        str(path),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "the three relevant features are the top 3: yes" in out
    assert ("group testing: 28 feature subsets" in out) == (split_search == "group_testing")
    assert json.loads(path.read_text())["format"] == "sparseboost"


@pytest.mark.parametrize(
    "argv", [["--help"], ["select", "--help"], ["predict", "--help"], ["demo", "--help"]]
)
def test_help_is_plain_text(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's own --help exits
        code = e.code
    assert code == 0
    text = capsys.readouterr().out
    assert "usage" in text
    assert "``" not in text and ":class:" not in text


def test_version(capsys):
    import sparseboost

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"sparseboost {sparseboost.__version__}\n"
