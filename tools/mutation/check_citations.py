"""Checks the behaviour checklists' citations (tools/mutation/checklists/*.md, issue 51).

A row names the test that fails if its behaviour is wrong as `Suite.Name (file.cpp:LINE)`, with
more lines after it as `:LINE`, `LINE-LINE` or `, :LINE`. This reads each such citation and says
which name no test of that file has (a renamed or removed test), and which line lies outside the
named test's body (a citation left behind when lines moved). A test's body runs from its TEST,
TEST_F, TEST_P or RC_GTEST_PROP line to the next one. A file named without a folder is looked for
under tests/; a name found in several files there is checked against each. The catalog's
properties and planted bugs are tests registered at run time (testing::RegisterTest), so in a
file that registers tests a name is also found when a source of the catalog or of its tests
(properties/, tests/properties/) spells it as a string, and its lines are not checked. A file
that defines no test (a helper the test calls, a property's source) is cited for a line the test
reaches; there the name must be a test of some file under tests/, and the lines are not checked.
--fix writes each test's first line in place of a citation whose lines lie outside it, which
keeps the row true where the assertion it pointed at has moved.

  /usr/bin/python3 tools/mutation/check_citations.py [--fix] [CHECKLIST...]   (default: every checklist)

Exit status 1 when a citation is wrong (after --fix: when a name is), each printed as
checklist:row: what.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEST_START = re.compile(r"^\s*(?:TEST|TEST_F|TEST_P|RC_GTEST_PROP|RC_GTEST_FIXTURE_PROP)\(\s*(\w+)\s*,\s*(\w+)")
CITATION = re.compile(r"\b(?:\w+/)?([A-Z]\w*)\.([A-Za-z_]\w*)\s*\(([\w./-]+\.(?:cpp|hpp)):([^)]*)\)")
LINES = re.compile(r"(\d+)(?:-(\d+))?")
# A citation's line numbers: "12", "12-15", "12, :20", up to the first word ("1.5" is no line).
HEAD = re.compile(r"\d+(?:-\d+)?(?![\w.])(?:\s*,\s*:?\d+(?:-\d+)?(?![\w.]))*")


def test_spans(path, cache={}):
    """{(suite, name): (first line, last line)} of a test file."""
    if path not in cache:
        lines = path.read_text(errors="replace").splitlines()
        starts = [(number, match.groups()) for number, line in enumerate(lines, 1) if (match := TEST_START.match(line))]
        spans = {}
        for index, (number, key) in enumerate(starts):
            end = starts[index + 1][0] - 1 if index + 1 < len(starts) else len(lines)
            spans[key] = (number, end)
        cache[path] = spans
    return cache[path]


def registers_tests(path):
    return "testing::RegisterTest" in path.read_text(errors="replace")


def registered_names(cache=[]):
    """Every one-word string literal of the catalog's sources and its tests': the names of the
    tests registered at run time are among them."""
    if not cache:
        for folder in ("properties", "tests/properties"):
            for source in sorted((ROOT / folder).glob("*.cpp")):
                # mutant_test registers a planted bug's name with its dashes as underscores.
                cache.extend(name.replace("-", "_") for name in re.findall(r'"([\w-]+)"', source.read_text(errors="replace")))
    return set(cache)


def is_any_test(suite, name, cache=[]):
    """Whether some file under tests/ defines the test or registers one of that name."""
    if not cache:
        cache.append({key for path in (ROOT / "tests").rglob("*.[ch]pp") for key in test_spans(path)})
    return (suite, name) in cache[0] or name in registered_names()


def files_named(name):
    if "/" in name:
        return [ROOT / name] if (ROOT / name).is_file() else []
    return sorted((ROOT / "tests").rglob(name))


def cited_lines(head):
    """The line numbers of a citation's head (its numbers before any word), ranges by both ends."""
    numbers = set()
    for match in LINES.finditer(head):
        numbers.update({int(match.group(1)), int(match.group(2) or match.group(1))})
    return sorted(numbers)


def check(checklist, fix):
    """The checklist's wrong citations; with `fix`, rewrites those whose lines moved."""
    problems = []
    rows = checklist.read_text().splitlines(keepends=True)
    for index, line in enumerate(rows):
        row = re.match(r"^\| (\d+) \|", line)
        if not row:
            continue
        where = f"{checklist.name}:{row.group(1)}"

        def checked(citation):
            suite, name, file_name, rest = citation.groups()
            paths = files_named(file_name)
            if not paths:
                problems.append(f"{where}: no file {file_name}")
                return citation.group(0)
            spans = [test_spans(path)[(suite, name)] for path in paths if (suite, name) in test_spans(path)]
            if not spans:
                registered = name in registered_names() and any(registers_tests(path) for path in paths)
                helper = not any(test_spans(path) for path in paths) and is_any_test(suite, name)
                if not (registered or helper):
                    problems.append(f"{where}: {file_name} has no test {suite}.{name}")
                return citation.group(0)
            head = match.group(0) if (match := HEAD.match(rest)) else ""
            outside = [n for n in cited_lines(head) if not any(first <= n <= last for first, last in spans)]
            if not outside:
                return citation.group(0)
            if fix:
                return citation.group(0).replace(f"{file_name}:{head}", f"{file_name}:{spans[0][0]}", 1)
            bodies = ", ".join(f"{first}-{last}" for first, last in spans)
            problems.append(f"{where}: {file_name}:{','.join(map(str, outside))} is outside {suite}.{name} (lines {bodies})")
            return citation.group(0)

        rows[index] = CITATION.sub(checked, line)
    if fix:
        checklist.write_text("".join(rows))
    return problems


def main():
    arguments = sys.argv[1:]
    fix = "--fix" in arguments
    names = [name for name in arguments if name != "--fix"]
    names = names or sorted(str(path) for path in (ROOT / "tools/mutation/checklists").glob("*.md"))
    problems = [problem for name in names for problem in check(pathlib.Path(name), fix)]
    for problem in problems:
        print(problem)
    print(f"{len(problems)} wrong citation(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
