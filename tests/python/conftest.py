"""The tests check the examples' kernels (examples/python/), so that what docs/python.md shows is what is tested."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"))
