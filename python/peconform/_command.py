"""The `peconform` console command of an installed peconform: it replaces this Python process with
the C++ command line installed inside the package (bin/peconform), as the cmake wheel's `cmake`
does, so that every subcommand, exit status and signal is the executable's own."""
import os
import pathlib
import sys

COMMAND = pathlib.Path(__file__).resolve().parent / "bin" / "peconform"


def main():
    if not COMMAND.is_file():
        sys.exit(f"peconform: {COMMAND} is missing: this package was installed without its command line")
    os.execv(COMMAND, [str(COMMAND), *sys.argv[1:]])
