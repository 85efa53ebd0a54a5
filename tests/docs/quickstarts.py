#!/usr/bin/env python3
"""The README's quick starts, run as the README shows them, against a build of peconform.

    quickstarts.py cmake|pytest|properties README BUILD_DIR
    quickstarts.py cmake-wheel|pytest-wheel README VENV

Each quick start's blocks are read from README itself (tests/docs/fenced_blocks.py): a block
marked `<!-- quickstart-NAME: FILE -->` is written as FILE into a fresh project folder, and a block
marked `<!-- quickstart-NAME: STEP -->` (install, test, run) is run by bash, every line as written
but the one that sets the variables the reader would set (`prefix=...`, `peconform=...`), for which
this puts a scratch folder; a step that uses a variable an earlier step set is run after that
setting. A scratch checkout stands for the reader's clone: its
build/release is BUILD_DIR, the build the README's two commands make.

- cmake: `cmake --install` into a scratch prefix, then the kernel's own project configured and
  built against that prefix alone, and its ctest run: the kernel must conform, with its four
  reports where the README says.
- pytest: pytest on the README's test file: it must pass.
- properties: the README's variant script: it must exit 0 and print the verdicts the README says.
- cmake-wheel, pytest-wheel: the same kernel project and test file, run by the README's blocks for
  the wheel (`test-wheel`, `run-wheel`) in VENV, a venv the wheel is installed in (activated, as the
  reader's would be), with nothing of a build tree in reach: the wheel's CMake package must be
  the one found and its command the one the test runs (tests/wheel/wheel_test.sh).
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from fenced_blocks import BlockError, block_lines, fenced_block

REPORTS = ("report.json", "junit.xml", "summary.md", "report.html")


class Failure(Exception):
    pass


class QuickStart:
    """One quick start's blocks, in a scratch folder with a checkout and a project of its own."""

    def __init__(self, name, readme, build_dir, scratch):
        self.name, self.readme = name, readme
        self.scratch = pathlib.Path(scratch)
        self.checkout = self.scratch / "checkout"
        (self.checkout / "build").mkdir(parents=True)
        if build_dir:
            (self.checkout / "build" / "release").symlink_to(pathlib.Path(build_dir).resolve())
        self.project = self.scratch / "project"
        self.project.mkdir()

    def marker(self, label):
        return f"quickstart-{self.name.removesuffix('-wheel')}: {label}"

    def write_file(self, file_name, language):
        (self.project / file_name).write_text(fenced_block(self.readme, self.marker(file_name), language))

    def run_step(self, step, settings, folder, settings_pattern=None):
        """Runs the step's block in `folder` after `settings`, which replace its own first line
        where it sets its variables (`settings_pattern`); returns what it printed."""
        if settings_pattern:
            commands = block_lines(self.readme, self.marker(step), "sh", settings_pattern)[1:]
        else:
            commands = fenced_block(self.readme, self.marker(step), "sh").rstrip("\n").split("\n")
        script = "set -euo pipefail\n" + "\n".join([settings] + commands) + "\n"
        print(f"== {self.name}: {step}, in {folder}\n{script}", flush=True)
        # The block sets what it needs; nothing of the test's own environment may stand in for it.
        environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "CMAKE_PREFIX_PATH")}
        ran = subprocess.run(["bash", "-c", script], cwd=folder, env=environment, capture_output=True, text=True)
        said = ran.stdout + ran.stderr
        if ran.returncode != 0:
            raise Failure(f"the README's {self.name} quick start, step {step}, exited {ran.returncode}:\n{said}")
        return said


def cmake_quick_start(quick, build_dir):
    quick.write_file("tiny_rope.c", "c")
    quick.write_file("CMakeLists.txt", "cmake")
    prefix = quick.scratch / "prefix"
    settings = f"prefix={prefix}"
    quick.run_step("install", settings, quick.checkout, r"prefix=\S+(\s+#.*)?")
    said = quick.run_step("test", settings, quick.project)
    print(said)
    check_kernel_project(quick, prefix, said)


def cmake_wheel_quick_start(quick, venv):
    quick.write_file("tiny_rope.c", "c")
    quick.write_file("CMakeLists.txt", "cmake")
    said = quick.run_step("test-wheel", activate(venv), quick.project)
    print(said)
    check_kernel_project(quick, venv.resolve(), said)
    # <dlpack/dlpack.h> from the wheel too: a dlpack package found on the system would stand in
    # for the one a machine without libdlpack-dev lacks.
    dlpack = [line for line in (quick.project / "build" / "CMakeCache.txt").read_text().splitlines()
              if line.startswith("dlpack_DIR:") and not line.endswith("-NOTFOUND")]
    if dlpack:
        raise Failure(f"the kernel's project took dlpack from the system ({dlpack[0]}), not the wheel's <dlpack/dlpack.h>")
    tests = (quick.project / "build" / "CTestTestfile.cmake").read_text()
    if f"{venv.resolve()}/" not in tests:
        raise Failure(f"the kernel's conformance test does not run the command installed in {venv}:\n{tests}")


def activate(venv):
    return f"source {venv.resolve()}/bin/activate"


def check_kernel_project(quick, prefix, said):
    """The kernel's project found peconform under `prefix`, and its test left four conformant reports."""
    cache = (quick.project / "build" / "CMakeCache.txt").read_text()
    if f"peconform_DIR:PATH={prefix}/" not in cache:
        raise Failure(f"the kernel's project found a peconform package outside {prefix}")
    reports = quick.project / "build" / "peconform" / "tiny_rope"
    for report in REPORTS:
        if not (reports / report).is_file():
            raise Failure(f"no {report} in {reports}, where the README says the reports land:\n{said}")
    verdict = json.loads((reports / "report.json").read_text())["verdict"]
    if verdict != "conformant":
        raise Failure(f"report.json says {verdict}")


def pytest_quick_start(quick, build_dir):
    quick.write_file("test_rope.py", "python")
    said = quick.run_step("run", f"peconform={quick.checkout}", quick.project, r"peconform=\S+(\s+#.*)?")
    print(said)
    if "1 passed" not in said:
        raise Failure(f"pytest did not pass the README's one test:\n{said}")


def pytest_wheel_quick_start(quick, venv):
    quick.write_file("test_rope.py", "python")
    said = quick.run_step("run-wheel", activate(venv), quick.project)
    print(said)
    if "1 passed" not in said:
        raise Failure(f"pytest did not pass the README's one test:\n{said}")


def properties_quick_start(quick, build_dir):
    quick.write_file("my_variant.py", "python")
    said = quick.run_step("run", f"peconform={quick.checkout}", quick.project, r"peconform=\S+(\s+#.*)?")
    print(said)
    verdicts = {"rotationPreservesNormPerPair": "held", "innerProductDependsOnlyOnRelativePosition": "held",
                "rotationsComposeAdditively": "held", "rotationAtPositionZeroIsTheIdentity": "held", "rotationIsLinearInX": "held",
                "rotationAtNegatedPositionIsTheTranspose": "refused", "partialRotaryLeavesPassThroughDimsBitIdentical": "refused"}
    for relation, verdict in verdicts.items():
        if f"\n{relation}: {verdict} (" not in said:
            raise Failure(f"the variant's output does not say {relation}: {verdict}, as the README says it prints:\n{said}")


QUICK_STARTS = {"cmake": cmake_quick_start, "pytest": pytest_quick_start, "properties": properties_quick_start,
                "cmake-wheel": cmake_wheel_quick_start, "pytest-wheel": pytest_wheel_quick_start}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in QUICK_STARTS:
        sys.exit(__doc__)
    name, readme_path, place = sys.argv[1:]
    readme = pathlib.Path(readme_path).read_text()
    build_dir = None if name.endswith("-wheel") else place
    with tempfile.TemporaryDirectory(prefix=f"peconform-quickstart-{name}.") as scratch:
        try:
            QUICK_STARTS[name](QuickStart(name, readme, build_dir, scratch), pathlib.Path(place))
        except (Failure, BlockError) as failure:
            print(f"FAIL: {failure}", file=sys.stderr)
            sys.exit(1)
    print(f"the README's {name} quick start ran as written")


if __name__ == "__main__":
    main()
