"""`python -m peconform --cmake-dir`: where an installed peconform keeps what a C or C++ project
builds against, as `pybind11 --cmakedir` does for pybind11.

    cmake -S . -B build -DCMAKE_PREFIX_PATH=$(python -m peconform --cmake-dir)

--cmake-dir is the folder of peconformConfig.cmake (peconform::kernel_abi, peconform::peconform,
peconform_add_conformance_test), --include-dir the one of <peconform/kernel_abi.h>, --command the
C++ command line the `peconform` entry point runs.
"""
import argparse
import pathlib
import sys

PACKAGE = pathlib.Path(__file__).resolve().parent
PLACES = {
    "cmake_dir": PACKAGE / "lib" / "cmake" / "peconform",
    "include_dir": PACKAGE / "include",
    "command": PACKAGE / "bin" / "peconform",
}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m peconform", description=__doc__.split("\n\n")[0])
    chosen = parser.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--cmake-dir", action="store_true", help="the folder of peconformConfig.cmake")
    chosen.add_argument("--include-dir", action="store_true", help="the folder of peconform/kernel_abi.h")
    chosen.add_argument("--command", action="store_true", help="the peconform command line")
    arguments = parser.parse_args(argv)
    place = next(PLACES[name] for name, asked in vars(arguments).items() if asked)
    if not place.exists():
        sys.exit(f"python -m peconform: {place} does not exist: this peconform was not installed from the wheel "
                 "(scripts/build-wheel.sh) or `pip install .`; a build tree's CMake package comes from "
                 "`cmake --install build/release --prefix PREFIX`")
    print(place)


if __name__ == "__main__":
    main()
