"""The checkout's folders as the tests find them, named once here rather than counted up from each test's depth."""

from pathlib import Path

#: the repository root (the checkout)
REPO = Path(__file__).resolve().parents[1]
#: committed test inputs (MOSES sample, golden oracle logs, REINVENT 4.8's example run files)
TEST_DATA = REPO / "tests" / "data"
#: the bundled prior every run file and the demo start from
BUNDLED_PRIOR = REPO / "priors" / "moses-gru-2x256.prior"
#: the example third-party plugin (its own distribution)
EXAMPLE_PLUGIN = REPO / "examples" / "mara_chem_example_plugin"
