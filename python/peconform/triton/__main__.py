"""python -m peconform.triton [--mode MODE] [SCRIPT [ARGS...]]: runs SCRIPT as __main__ with
Triton's mode chosen first (docs/triton.md), or without SCRIPT prints what that mode is here."""
import argparse
import os
import runpy
import sys

import peconform.triton


def main():
    parser = argparse.ArgumentParser(prog="python -m peconform.triton", description=__doc__.split(":", 1)[1].strip())
    parser.add_argument("--mode", default="auto", choices=peconform.triton.MODES)
    parser.add_argument("script", nargs="?", help="a Python file, run as python would run it")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    options = parser.parse_args()
    try:
        execution = peconform.triton.select(options.mode)
    except peconform.triton.TritonModeError as error:
        parser.exit(2, f"python -m peconform.triton: {error}\n")
    if options.script is None:
        print(execution)
        return
    sys.argv = [options.script] + options.args
    sys.path.insert(0, os.path.dirname(os.path.abspath(options.script)))  # as `python SCRIPT` puts it first
    runpy.run_path(options.script, run_name="__main__")


if __name__ == "__main__":
    main()
