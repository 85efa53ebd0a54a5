"""The upstream conformance matrix: every library's results (libraries/<library>.json, written by
conformance.py; ggml's from its peconform reports under ggml/) assembled into one matrix.json and
written as Markdown and as a standalone HTML page. Needs nothing but Python's standard library, so
it runs with Debian's interpreter (ctest) as well as in each library's environment. The page looks
like a campaign's report.html: its style sheet is reports/report.css, its cells take the same
shades of worst error / bound, and its numbers are written as reports/number_text.cpp writes them.

    /usr/bin/python3 tools/upstream/matrix.py [--out reports/upstream]
"""
import argparse
import datetime
import html as html_escape
import json
import math
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The matrix's order: transformers first, then the other PyTorch libraries, JAX, the C++ kernels,
# vLLM, and the GPU libraries' Triton kernels.
LIBRARY_ORDER = ["transformers", "torchtune", "rotary-embedding-torch", "x-transformers", "timm", "keras-hub",
                 "onnxruntime", "mlx", "ggml", "vllm", "liger-kernel", "flash-attn", "unsloth", "xformers"]

GGML_COLUMNS = [
    {"name": "fp32-angle (theta=ggml)", "keys": "precision=fp32-angle,theta=ggml", "report": "fp32-angle",
     "meaning": "ggml's own recipe: theta by its float32 running product, the angle in float32, fp16 math in float32"},
    {"name": "exact-angle", "keys": "precision=exact-angle", "report": "exact-angle",
     "meaning": "angles exact to 2^-100 relative: float32 angles depart from them as positions grow"},
]

# The row of each kernel examples/ggml-plugin declares (its -exact twin shares it): family, source,
# name and spec without the dtype, which each row appends.
GGML_KERNELS = {
    "ggml-rope-neox": ("rope", "ggml src/ggml-cpu/ops.cpp: ggml_compute_forward_rope_flt", "ggml_rope_ext (NeoX pairs)",
                       "rope(d=*,base=*,layout=half,rot=*,scaling=none|linear|yarn|custom(factors)"),
    "ggml-rope-norm": ("rope", "ggml src/ggml-cpu/ops.cpp: ggml_compute_forward_rope_flt", "ggml_rope_ext (GPT-J pairs)",
                       "rope(d=*,base=*,layout=interleaved,rot=*,scaling=none|linear|yarn|custom(factors)"),
    "ggml-mrope": ("mrope", "ggml src/ggml-cpu/ops.cpp: ggml_mrope_cache_init, ggml_compute_forward_rope_flt",
                   "ggml_rope_multi (MROPE: blocked sections, e = 0)",
                   "mrope(d=*,base=*,layout=half,sections=*,rot=*,scaling=none|linear"),
    "ggml-imrope": ("mrope", "ggml src/ggml-cpu/ops.cpp: ggml_mrope_cache_init, ggml_compute_forward_rope_flt",
                    "ggml_rope_multi (IMROPE: interleaved sections, e = 0)",
                    "mrope(d=*,base=*,layout=half,sections=*,section_mode=interleaved,rot=*,scaling=none|linear"),
    "ggml-vision": ("rope2d", "ggml src/ggml-cpu/ops.cpp: ggml_mrope_cache_init, ggml_compute_forward_rope_flt",
                    "ggml_rope_multi (VISION: n_dims = d/2, sections d/4, as llama.cpp's vision towers)",
                    "rope2d(d=*,base=*,layout=half"),
}


def brief(spec):
    """The spec with each long list (LongRoPE's factors) cut to its count, for the table; the
    failing cells' sections give it whole."""
    return re.sub(r"\[([^\[\]]{40,})\]", lambda m: f"[{m.group(1).count(',') + 1} values]", spec)


def grouped(count):
    """485632469 -> "485,632,469"."""
    return f"{count:,}"


def _without_trailing_zeros(number):
    return number.rstrip("0").rstrip(".") if "." in number else number


def significant(value):
    """At most three significant digits, trailing zeros dropped: decimals from 0.001 up to 1000
    ("0.996", "3.5"), a power of ten outside ("7.97e5", "1.23e-4"); "0", "inf", "nan"."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.2e}".split("e")
    exponent = int(exponent)  # after rounding to three digits: 999.6 is 1.00e+03
    if -3 <= exponent < 3:
        return _without_trailing_zeros(f"{value:.{2 - exponent}f}")
    return f"{_without_trailing_zeros(mantissa)}e{exponent}"


def short_count(count):
    """Below 10,000 as grouped() writes it; from there two significant digits: "4.9e8"."""
    if count < 10_000:
        return grouped(count)
    mantissa, exponent = f"{count:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def shade(cell):
    """The cell's class in reports/report.css, as reports/overview_grid.cpp picks it: failed; else
    the band of the worst error / bound ([0.5, 1], [0.25, 0.5), [0.1, 0.25), below 0.1 loose);
    a ratio of 0 is an integer family compared bit for bit (the matrix keeps no count of bounded
    elements to tell it from an exact float, and only T5's buckets have one)."""
    if cell is None:
        return "not-drawn"
    if not cell["conformant"]:
        return "failed"
    ratio = cell["worst_ratio"]
    if ratio == 0:
        return "bit-exact"
    if ratio >= 0.5:
        return "within-2x"
    if ratio >= 0.25:
        return "within-4x"
    if ratio >= 0.1:
        return "within-10x"
    return "loose"


def ggml_library(folder):
    """ggml's rows and cells from the peconform reports examples/ggml-plugin/rebuild-report.sh wrote:
    one row per kernel and dtype, a column per report."""
    rows, cells = {}, []
    run = None
    for column in GGML_COLUMNS:
        path = folder / column["report"] / "report.json"
        if not path.is_file():
            return None
        report = json.loads(path.read_text())
        run = run or report["run"]
        failures = {}
        for failure in report["failures"]:
            failures.setdefault((failure["backend"], failure["dtype"]), []).append(failure)
        for cell in report["cells"]:
            kernel = cell["backend"].removesuffix("-exact")
            key = f"{kernel}/{cell['dtype']}"
            if kernel not in GGML_KERNELS:
                raise SystemExit(f"{path}: kernel {cell['backend']} is not one examples/ggml-plugin declares "
                                 f"({', '.join(GGML_KERNELS)}); add its row to GGML_KERNELS")
            family, source, name, spec = GGML_KERNELS[kernel]
            rows.setdefault(key, {
                "key": key, "family": family, "source": source, "name": f"{name}, {cell['dtype']}",
                "spec": f"{spec},dtype={cell['dtype']})",
                "columns": [{k: c[k] for k in ("name", "keys", "meaning")} for c in GGML_COLUMNS]})
            shown = failures.get((cell["backend"], cell["dtype"]), [])[:1]
            cells.append({
                "key": key, "column": column["name"], "spec": rows[key]["spec"], "kernel": cell["backend"],
                "verdict": "conformant" if cell["failed_cases"] == 0 else "non-conformant",
                "conformant": cell["failed_cases"] == 0, "elements": cell["elements"], "worst_ratio": cell["worst_ratio"],
                "worst_ratio_by_position": cell["worst_ratio_by_position"], "failure_count": cell["failed_cases"],
                "failures": [{"case": f["case"], "kind": f["first_failure"]["kind"], "message": ggml_message(f),
                              "reproducer": f["replay"]} for f in shown]})
    # GGML_KERNELS' order, so that the rope family comes first as it always has, rope2d last.
    order = list(GGML_KERNELS)
    ranked = sorted(rows.values(), key=lambda row: (order.index(row["key"].split("/")[0]), row["key"]))
    return {"library": "ggml", "rows": ranked, "cells": cells,
            "run": {"date": ggml_date(folder), "command": "examples/ggml-plugin/rebuild-report.sh GGML_SOURCE_DIR",
                    "machine": run["machine"], "python": "",
                    "versions": {"ggml": run["backend"].removeprefix("plugin:ggml-"), "peconform": run["commit"][:7]},
                    "profile": run["profile"], "cases": run["cases_planned"], "seed": run["seed"]},
            "findings": "ggml/FINDINGS.md"}


def ggml_date(folder):
    """The day rebuild-report.sh wrote ggml/README.md, from its first line that says."""
    found = re.search(r"on (\d{4}-\d{2}-\d{2})", (folder / "README.md").read_text())
    return found.group(1) if found else "unknown"


def ggml_message(failure):
    first = failure["first_failure"]
    return (f"FAIL [{first['kind']}] {failure['case']}\n  element {first['element']} ({first['position']}): "
            f"reference {first['reference']}, actual {first['actual']}")


def assemble(out):
    """Gathers out/libraries/*.json and ggml's reports into out/matrix.json and writes matrix.md and
    matrix.html from it."""
    libraries = []
    for path in sorted((out / "libraries").glob("*.json")):
        libraries.append(json.loads(path.read_text()))
    ggml = ggml_library(out / "ggml")
    if ggml:
        libraries.append(ggml)
    order = {name: i for i, name in enumerate(LIBRARY_ORDER)}
    libraries.sort(key=lambda lib: order.get(lib["library"], len(order)))
    matrix = {"assembled": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "libraries": libraries}
    (out / "matrix.json").write_text(json.dumps(matrix, indent=1) + "\n")
    (out / "matrix.md").write_text(markdown(matrix))
    (out / "matrix.html").write_text(html(matrix))
    print(f"wrote {out / 'matrix.md'}, matrix.html and matrix.json ({len(libraries)} libraries)")


def groups(library):
    """The library's rows by family, in the order they came, each row with its cells by column."""
    by_key = {row["key"]: dict(row, cells={}) for row in library["rows"]}
    for cell in library["cells"]:
        by_key[cell["key"]]["cells"][cell["column"]] = cell
    families = {}
    for row in by_key.values():
        families.setdefault(row["family"], []).append(row)
    return families


def family_columns(rows):
    """Every column the family's rows have, in first-seen order with the exact-angle contrast last
    (each row's own recipes come first, whichever row brought them), with its keys and meaning."""
    columns = {}
    for row in rows:
        for column in row["columns"]:
            columns.setdefault(column["name"], column)
    return sorted(columns.values(), key=lambda column: column["name"] == "exact-angle")


def first_position_over(cell):
    """Where the cell's error first passes its bound: the lowest position bin over 1, as text."""
    over = [b for b, ratio in enumerate(cell.get("worst_ratio_by_position", [])) if ratio > 1]
    if not over:
        return None
    return "0" if over[0] == 0 else f"2^{over[0] - 1}"


def verdict(cell, row=None, column=None):
    """The verdict and the worst numeric ratio; where a cell fails without a numeric error past its
    bound (an out-of-bounds write, an exception), the kind of its first failure instead. A column
    of the family that the row is not held to (another row's recipe) is "—"."""
    if cell is None:
        if row and column and all(c["name"] != column for c in row["columns"]):
            return "—"
        return "awaiting a recipe" if row and row.get("awaiting") else "not run"
    text = f"{'conformant' if cell['conformant'] else cell['verdict']} ({significant(cell['worst_ratio'])})"
    if not cell["conformant"] and cell["worst_ratio"] <= 1 and cell["failures"]:
        text = f"{cell['verdict']} ({cell['failures'][0]['kind']}; numeric worst {significant(cell['worst_ratio'])})"
    start = None if cell["conformant"] else first_position_over(cell)
    return f"{text}, from p ≥ {start}" if start else text


def failing(library):
    return [cell for cell in library["cells"] if not cell["conformant"]]


def versions(library):
    return ", ".join(f"{name} {version}" for name, version in library["run"]["versions"].items())


def counts(library):
    """(rows judged, rows awaiting a recipe, cells under the library's own recipes, those
    conformant): the exact-angle contrast is not counted, since float32 code fails it by design."""
    awaiting = sum(bool(row.get("awaiting")) for row in library["rows"])
    own = [c for c in library["cells"] if c["column"] != "exact-angle"]
    return len(library["rows"]) - awaiting, awaiting, len(own), sum(c["conformant"] for c in own)


def execution(library):
    """Where a library's Triton kernels ran, in words; None for a library without Triton cells."""
    run = library["run"]
    if not run.get("executions"):
        return None
    where = (f"compiled on {run['gpu']} where a column says so, else Triton's interpreter on the CPU" if run.get("gpu")
             else "Triton's interpreter on the CPU only (no GPU in this run: no column is compiled Triton)")
    return f"{where}: " + "; ".join(run["executions"])


def anchor(library, cell):
    return re.sub(r"[^A-Za-z0-9]+", "-", f"{library['library']}-{cell['key']}-{cell['column']}").strip("-").lower()


INTRO = ("Each library's own positional-encoding code (not ports), called by `peconform.check()` through a "
         "thin adapter (tools/upstream/adapt_<library>.py) under each precision class of its family: the "
         "library's own recipe, and exact-angle as the contrast where the family has angles. A cell gives the "
         "verdict and the worst error / bound over every element checked (below 1 conforms) and, where it "
         "fails, the smallest position from which an error passes its bound (positions binned by powers of "
         "two); a dash marks another row's recipe, which this row is not held to. Every non-conformant cell "
         "outside the exact-angle contrast has its finding in FINDINGS.md. The GPU libraries' Triton kernels run "
         "their own Triton source through Triton's interpreter on the CPU, each column naming its mode (as shipped, "
         "or GPU-faithful); each library's Execution line says whether a GPU compiled any of them.")


def _md(text):
    return str(text).replace("|", "\\|")


def markdown(matrix):
    lines = ["# Upstream conformance matrix", "", INTRO, "", f"Assembled {matrix['assembled']}.", "",
             "| library | versions | made | rows | awaiting a recipe | conformant under its own recipe |",
             "|---|---|---|---|---|---|"]
    for library in matrix["libraries"]:
        judged, awaiting, own, passed = counts(library)
        lines.append(f"| [{library['library']}](#{library['library']}) | {_md(versions(library))} | "
                     f"{_md(library['run']['date'])} | {judged} | {awaiting} | {passed} of {own} cells |")
    for library in matrix["libraries"]:
        run = library["run"]
        lines += ["", f"## {library['library']}", "",
                  f"- Command: `{run['command']}`",
                  f"- Machine: {run['machine']}" + (f"; Python {run['python']}" if run["python"] else ""),
                  f"- Versions: {versions(library)}",
                  f"- Campaign: profile {run['profile']}, {run['cases'] or 'the profile’s'} cases per cell, seed {run['seed']}"]
        if execution(library):
            lines.append(f"- Execution: {execution(library)}")
        for family, rows in groups(library).items():
            columns = family_columns(rows)
            lines += ["", f"### {library['library']}: {family}", ""]
            lines += [f"- **{c['name']}** (`{c['keys'] or 'the spec as it is'}`): {c['meaning']}" for c in columns]
            lines += ["", "| implementation | spec | " + " | ".join(_md(c["name"]) for c in columns) + " |",
                      "|---|---|" + "---|" * len(columns)]
            for row in rows:
                cells = [_md(verdict(row["cells"].get(c["name"]), row, c["name"])) for c in columns]
                lines.append(f"| {_md(row['name'])} | `{_md(brief(row['spec']))}` | " + " | ".join(cells) + " |")
            awaiting = [f"- Awaiting a recipe, **{row['name']}**: {row['awaiting']}" for row in rows if row.get("awaiting")]
            lines += [""] + awaiting if awaiting else []
    lines += ["", "## Non-conformant cells", ""]
    any_failing = False
    for library in matrix["libraries"]:
        for cell in failing(library):
            any_failing = True
            lines += [f"### {library['library']}, {cell['key']}: {cell['column']}", "",
                      f"Spec `{cell['spec']}`, kernel `{cell['kernel']}`: {cell['verdict']}, "
                      f"{grouped(cell['failure_count'])} failing case(s), worst ratio {significant(cell['worst_ratio'])}.", ""]
            for failure in cell["failures"]:
                lines += ["```", failure["message"].rstrip(), "```", "", "Reproducer:", "",
                          "```", failure["reproducer"], "```", ""]
    if not any_failing:
        lines.append("None.")
    return "\n".join(lines).rstrip() + "\n"


# What this page adds to reports/report.css: the summary's all-conformant count, and the
# exact-angle contrast, which float32 code fails by design, in a muted red apart from real failures.
_STYLE = """
table.matrix { width: 100%; }
td.pass { background: #e3f1e6; color: #1e6b34; }
.failed.contrast { background: #f6e3e3; color: #9b1c1c; font-weight: normal; }
td.failed a, td.within-2x a { color: inherit; }
"""

LEGEND = [("failed", "&#x2717;", "non-conformant under the library's own recipe"),
          ("failed contrast", "&#x2717;", "non-conformant under the exact-angle contrast, as float32 code is by design"),
          ("within-2x", "0.5&ndash;1", "conformant, within 2&times; of the bound"),
          ("within-4x", "0.25&ndash;0.5", "within 4&times;"), ("within-10x", "0.1&ndash;0.25", "within 10&times;"),
          ("loose", "&lt; 0.1", "loose: a kernel 10 times worse would pass too"),
          ("bit-exact", "=", "compared bit for bit (integers)"), ("not-drawn", "&ndash;", "not run"),
          ("not-drawn", "&mdash;", "another row's recipe: this row is not held to it")]


def style():
    return (ROOT / "reports" / "report.css").read_text() + _STYLE


def legend():
    return ("<ul class=\"legend\">" + "".join(f"<li><span class=\"swatch {css}\">{swatch}</span>{meaning}</li>"
                                               for css, swatch, meaning in LEGEND) + "</ul>")


def html(matrix):
    e = html_escape.escape
    parts = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
             "<title>Upstream conformance matrix</title>", f"<style>{style()}</style></head><body>",
             "<h1>Upstream conformance matrix</h1>", f"<p>{e(INTRO)}</p>", f"<p>Assembled {e(matrix['assembled'])}.</p>",
             legend(), "<table><tr><th>library</th><th>versions</th><th>made</th><th>rows</th><th>awaiting a recipe</th>"
             "<th>conformant under its own recipe</th></tr>"]
    for library in matrix["libraries"]:
        judged, awaiting, own, passed = counts(library)
        summary = "pass" if passed == own else "failed"
        parts.append(f"<tr><td><a href=\"#{e(library['library'])}\">{e(library['library'])}</a></td>"
                     f"<td>{e(versions(library))}</td><td>{e(library['run']['date'])}</td><td>{judged}</td>"
                     f"<td>{awaiting}</td><td class=\"{summary}\">{passed} of {own} cells</td></tr>")
    parts.append("</table>")
    for library in matrix["libraries"]:
        parts += _html_library(library)
    parts.append("<h2>Non-conformant cells</h2>")
    any_failing = False
    for library in matrix["libraries"]:
        for cell in failing(library):
            any_failing = True
            parts += [f"<article class=\"card\" id=\"{anchor(library, cell)}\">",
                      f"<h3>{e(library['library'])}, {e(cell['key'])}: {e(cell['column'])}</h3>",
                      f"<p>Spec <code>{e(cell['spec'])}</code>, kernel <code>{e(cell['kernel'])}</code>: "
                      f"{e(cell['verdict'])}, {grouped(cell['failure_count'])} failing case(s), worst ratio "
                      f"{significant(cell['worst_ratio'])}.</p>"]
            for failure in cell["failures"]:
                parts += [f"<pre>{e(failure['message'].rstrip())}</pre>", "<p>Reproducer:</p>",
                          f"<pre class=\"replay\">{e(failure['reproducer'])}</pre>"]
            parts.append("</article>")
    if not any_failing:
        parts.append("<p>None.</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _html_library(library):
    e = html_escape.escape
    run = library["run"]
    parts = [f"<h2 id=\"{e(library['library'])}\">{e(library['library'])}</h2>",
             f"<p>{e(versions(library))}; profile {e(str(run['profile']))}, "
             f"{e(str(run['cases'] or 'the profile’s'))} cases per cell, seed {e(str(run['seed']))}; "
             f"{e(run['machine'])}. Made {e(run['date'])} by <code>{e(run['command'])}</code>.</p>"]
    if execution(library):
        parts.append(f"<p>Execution: {e(execution(library))}.</p>")
    for family, rows in groups(library).items():
        columns = family_columns(rows)
        parts.append(f"<h3>{e(library['library'])}: {e(family)}</h3><ul>")
        parts += [f"<li><b>{e(c['name'])}</b> (<code>{e(c['keys'] or 'the spec as it is')}</code>): {e(c['meaning'])}</li>"
                  for c in columns]
        parts += ["</ul>", "<table class=\"matrix\"><tr><th>implementation</th><th>spec</th>"
                  + "".join(f"<th>{e(c['name'])}</th>" for c in columns) + "</tr>"]
        for row in rows:
            tds = []
            for column in columns:
                cell = row["cells"].get(column["name"])
                style = shade(cell)
                if column["name"] == "exact-angle":
                    style += " contrast"
                text = e(verdict(cell, row, column["name"]))
                if cell is not None and not cell["conformant"]:
                    text = f"<a href=\"#{anchor(library, cell)}\">{text}</a>"
                tds.append(f"<td class=\"{style}\">{text}</td>")
            parts.append(f"<tr><td>{e(row['name'])}</td><td><code>{e(brief(row['spec']))}</code></td>{''.join(tds)}</tr>")
        parts.append("</table>")
        awaiting = [row for row in rows if row.get("awaiting")]
        if awaiting:
            parts.append("<ul>" + "".join(f"<li>Awaiting a recipe, <b>{e(row['name'])}</b>: {e(row['awaiting'])}</li>"
                                          for row in awaiting) + "</ul>")
    return parts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "reports" / "upstream")
    assemble(parser.parse_args().out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
