"""The upstream conformance matrix as Markdown and as a standalone HTML page.

`run` says how the matrix was made (date, command, machine, pinned versions, profile, columns);
`cells` holds one check() result per model and column, in row order (conformance.py run_cell).
"""
import html as html_escape
import re


def brief(spec):
    """The spec with each long list (LongRoPE's factors) cut to its count, for the table; the
    failing cells' sections give it whole."""
    return re.sub(r"\[([^\[\]]{40,})\]", lambda m: f"[{m.group(1).count(',') + 1} values]", spec)


def _rows(cells):
    """The models in the order their cells came, each with its cells by column name."""
    rows = {}
    for cell in cells:
        rows.setdefault(cell["key"], {"model": cell["model"], "config_spec": cell["config_spec"], "cells": {}})
        rows[cell["key"]]["cells"][cell["column"]] = cell
    return rows


def first_position_over(cell):
    """Where the cell's error first passes its bound: the lowest position bin over 1, as text."""
    over = [b for b, ratio in enumerate(cell.get("worst_ratio_by_position", [])) if ratio > 1]
    if not over:
        return None
    return "0" if over[0] == 0 else f"2^{over[0] - 1}"


def _verdict(cell):
    if cell is None:
        return "not run"
    text = f"{'conformant' if cell['conformant'] else cell['verdict']} ({cell['worst_ratio']:.3g})"
    start = None if cell["conformant"] else first_position_over(cell)
    return f"{text}, from p ≥ {start}" if start else text


def _failing(cells):
    return [cell for cell in cells if not cell["conformant"]]


def _md(text):
    return str(text).replace("|", "\\|")


def markdown(run, cells):
    columns = [column["name"] for column in run["columns"]]
    versions = ", ".join(f"{name} {version}" for name, version in run["versions"].items())
    lines = [
        "# Upstream conformance matrix",
        "",
        "transformers' own rotary embedding modules and apply functions (not ports), each run by",
        "`peconform.check()` on the spec `Spec.from_hf_config` reads from the model's config.json",
        "(fixtures/hf-configs/), under each precision class. A cell gives the verdict and the worst",
        "error / bound over every element checked (below 1 conforms) and, where it fails, the",
        "smallest position from which an error passes its bound (positions binned by powers of two).",
        "",
        f"- Date: {run['date']}",
        f"- Command: `{run['command']}`",
        f"- Machine: {run['machine']}; Python {run['python']}",
        f"- Versions: {versions}",
        f"- Campaign: profile {run['profile']}, {run['cases'] or 'the profile’s'} cases per cell, seed {run['seed']}",
        "",
        "Columns:",
        "",
    ]
    lines += [f"- **{c['name']}** (`{c['keys']}`): {c['meaning']}" for c in run["columns"]]
    lines += ["", "| model | spec from config.json | " + " | ".join(columns) + " |",
              "|---|---|" + "---|" * len(columns)]
    for row in _rows(cells).values():
        verdicts = [_md(_verdict(row["cells"].get(name))) for name in columns]
        lines.append(f"| {_md(row['model'])} | `{_md(brief(row['config_spec']))}` | " + " | ".join(verdicts) + " |")
    failing = _failing(cells)
    lines += ["", "## Non-conformant cells", ""]
    if not failing:
        lines.append("None.")
    for cell in failing:
        lines += [f"### {cell['model']}: {cell['column']}", "",
                  f"Spec `{cell['spec']}`, kernel `{cell['kernel']}`: {cell['verdict']}, "
                  f"{cell['failure_count']} failing case(s), worst ratio {cell['worst_ratio']:.3g}.", ""]
        for failure in cell["failures"]:
            lines += ["```", failure["message"].rstrip(), "```", "", "Reproducer:", "",
                      "```", failure["reproducer"], "```", ""]
    return "\n".join(lines).rstrip() + "\n"


_STYLE = """
body { font-family: sans-serif; margin: 2em; max-width: 80em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #bbb; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
td.pass { background: #e3f4e3; } td.fail { background: #f8dddd; } td.none { background: #eee; }
code, pre { font-size: 0.9em; } pre { background: #f4f4f4; padding: 0.6em; overflow-x: auto; }
"""


def html(run, cells):
    e = html_escape.escape
    columns = [column["name"] for column in run["columns"]]
    versions = ", ".join(f"{e(name)} {e(version)}" for name, version in run["versions"].items())
    parts = [
        "<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<title>Upstream conformance matrix</title>", f"<style>{_STYLE}</style></head><body>",
        "<h1>Upstream conformance matrix</h1>",
        "<p>transformers' own rotary embedding modules and apply functions (not ports), each run by "
        "<code>peconform.check()</code> on the spec <code>Spec.from_hf_config</code> reads from the model's "
        "config.json, under each precision class. A cell gives the verdict and the worst error / bound "
        "(below 1 conforms) and, where it fails, the smallest position from which an error passes its bound "
        "(positions binned by powers of two).</p>",
        "<ul>",
        f"<li>Date: {e(run['date'])}</li>",
        f"<li>Command: <code>{e(run['command'])}</code></li>",
        f"<li>Machine: {e(run['machine'])}; Python {e(run['python'])}</li>",
        f"<li>Versions: {versions}</li>",
        f"<li>Campaign: profile {e(run['profile'])}, {e(str(run['cases'] or 'the profile’s'))} cases per cell, "
        f"seed {e(str(run['seed']))}</li>",
        "</ul><ul>",
    ]
    parts += [f"<li><b>{e(c['name'])}</b> (<code>{e(c['keys'])}</code>): {e(c['meaning'])}</li>" for c in run["columns"]]
    parts += ["</ul>", "<table><tr><th>model</th><th>spec from config.json</th>"
              + "".join(f"<th>{e(name)}</th>" for name in columns) + "</tr>"]
    for row in _rows(cells).values():
        tds = []
        for name in columns:
            cell = row["cells"].get(name)
            style = "none" if cell is None else "pass" if cell["conformant"] else "fail"
            text = e(_verdict(cell))
            if cell is not None and not cell["conformant"]:
                text = f"<a href=\"#{e(cell['key'])}-{e(name)}\">{text}</a>"
            tds.append(f"<td class=\"{style}\">{text}</td>")
        parts.append(f"<tr><td>{e(row['model'])}</td><td><code>{e(brief(row['config_spec']))}</code></td>{''.join(tds)}</tr>")
    parts += ["</table>", "<h2>Non-conformant cells</h2>"]
    failing = _failing(cells)
    if not failing:
        parts.append("<p>None.</p>")
    for cell in failing:
        parts += [f"<h3 id=\"{e(cell['key'])}-{e(cell['column'])}\">{e(cell['model'])}: {e(cell['column'])}</h3>",
                  f"<p>Spec <code>{e(cell['spec'])}</code>, kernel <code>{e(cell['kernel'])}</code>: "
                  f"{e(cell['verdict'])}, {cell['failure_count']} failing case(s), worst ratio {cell['worst_ratio']:.3g}.</p>"]
        for failure in cell["failures"]:
            parts += [f"<pre>{e(failure['message'].rstrip())}</pre>", "<p>Reproducer:</p>",
                      f"<pre>{e(failure['reproducer'])}</pre>"]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
