#!/usr/bin/env python3
"""Every relative link of the README and the manual resolves: to a file or folder that exists
and, where it names an anchor (`page.md#section`, `#section`), to a heading of that page.

    check_links.py SOURCE_DIR

Reads README.md and docs/*.md under SOURCE_DIR (standard library only). Links in fenced code
blocks and in code spans are text, not links, and are left alone; so are links with a scheme
(https:, mailto:). Anchors are made from headings as GitHub makes them: lower case, every
character but letters, digits, `-`, `_` and spaces dropped, spaces turned into `-`, and a
repeated anchor numbered -1, -2, ...
"""
import pathlib
import re
import sys

FENCE = re.compile(r"^(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)*?\1")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(path):
    """(line number, text) of every line outside fenced code blocks, code spans blanked."""
    inside = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line.lstrip()):
            inside = not inside
            continue
        if not inside:
            yield number, CODE_SPAN.sub(lambda span: " " * len(span.group(0)), line)


def anchors(path):
    """The anchors GitHub gives the headings of a Markdown page."""
    made, seen = set(), {}
    inside = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.lstrip()):
            inside = not inside
            continue
        heading = None if inside else HEADING.match(line)
        if not heading:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(2))  # a link in a heading keeps its text
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        made.add(slug if count == 0 else f"{slug}-{count}")
    return made


def broken_links(page, source_dir):
    """A message per link of `page` that does not resolve."""
    broken = []
    for number, line in prose_lines(page):
        for link in LINK.finditer(line):
            target = link.group(1)
            if SCHEME.match(target):
                continue
            path_text, _, anchor = target.partition("#")
            path = (page.parent / path_text).resolve() if path_text else page
            where = f"{page.relative_to(source_dir)}:{number}: {target}"
            if not path.exists():
                broken.append(f"{where}: no such file or folder")
            elif anchor and path.suffix == ".md" and anchor not in anchors(path):
                broken.append(f"{where}: {path.relative_to(source_dir)} has no heading #{anchor}")
            elif anchor and path.suffix != ".md":
                broken.append(f"{where}: an anchor into a file that is not Markdown")
    return broken


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    source_dir = pathlib.Path(sys.argv[1]).resolve()
    pages = [source_dir / "README.md"] + sorted((source_dir / "docs").glob("*.md"))
    broken = [message for page in pages for message in broken_links(page, source_dir)]
    links = sum(len(LINK.findall(line)) for page in pages for _, line in prose_lines(page))
    if broken:
        print("\n".join(broken), file=sys.stderr)
        sys.exit(f"FAIL: {len(broken)} of {links} links in {len(pages)} pages do not resolve")
    print(f"{links} links in {len(pages)} pages resolve")


if __name__ == "__main__":
    main()
