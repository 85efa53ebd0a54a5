"""The fenced code blocks of a Markdown page that a test runs as the page shows them.

A block is found by the HTML comment on the line right before it, `<!-- NAME -->`, which a
reader does not see: so a test reads what the page says today, and editing the page changes what
is tested. A block whose first line sets its variables (`prefix=/opt/peconform`) lets the test
put its own values there and run every other line as written.

Used by the README's quick starts (tests/docs/quickstarts.py) and the slurm test
(tests/slurm/campaign_on_slurm.py, docs/campaign.md's Slurm blocks).
"""
import re


class BlockError(Exception):
    """The page has no such block, or the block does not start with the settings it should."""


def fenced_block(text, marker, language):
    """The text of the ```LANGUAGE block right after the line `<!-- MARKER -->`."""
    found = re.search(rf"^<!-- {re.escape(marker)} -->\n```{re.escape(language)}\n(.*?)^```$", text, re.S | re.M)
    if not found:
        raise BlockError(f"no ```{language} block right after <!-- {marker} -->")
    return found.group(1)


def block_lines(text, marker, language, settings_pattern):
    """The block's lines, the first of which must set its variables as `settings_pattern` says."""
    lines = fenced_block(text, marker, language).rstrip("\n").split("\n")
    if not re.fullmatch(settings_pattern, lines[0]):
        raise BlockError(f"the block after <!-- {marker} --> starts with {lines[0]!r}, not its settings ({settings_pattern})")
    return lines
