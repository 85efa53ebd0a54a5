"""The matrix writer: each library's rows grouped by family, a column per class the family has, the
run's provenance, the counts of the summary table, ggml's rows read from its peconform reports,
and each non-conformant cell's failure and reproducer, in Markdown and in escaped HTML. Needs no
upstream package (ctest runs it with Debian's Python)."""
import json
import pathlib
import re
import subprocess

import pytest

import matrix

ROTARY_COLUMNS = [{"name": "fp32-angle", "keys": "precision=fp32-angle,theta=hf", "meaning": "float32 angles"},
                  {"name": "exact-angle", "keys": "precision=exact-angle", "meaning": "exact angles"}]
T5_COLUMNS = [{"name": "buckets", "keys": "", "meaning": "integer buckets"}]


def run(library_versions):
    return {"date": "2026-11-24 17:00 UTC", "command": "tools/upstream-conformance.sh --cases 8",
            "machine": "Linux, test CPU, 2 CPUs", "python": "3.11.2", "versions": library_versions,
            "profile": "ci", "cases": 8, "seed": 7}


def row(key, name, family, columns):
    return {"key": key, "name": name, "family": family, "spec": f"{family}(d=8)", "source": "x.py: f", "columns": columns}


def cell(key, column, conformant, ratio, failures=(), by_position=()):
    return {"key": key, "column": column, "spec": f"rope(d=8,{column})", "kernel": "lib.Rotary",
            "verdict": "conformant" if conformant else "non-conformant", "conformant": conformant, "elements": 100,
            "worst_ratio": ratio, "seconds": 1.0, "failures": list(failures), "failure_count": len(failures),
            "worst_ratio_by_position": list(by_position)}


def failure(kind="numeric", reproducer="tools/upstream-conformance.sh --replay 'x'"):
    return {"case": "rope(d=8) | batch=1 seq=1", "kind": kind, "element": 3, "position": 131071, "reference": "0.5",
            "actual": "0.49", "ratio": 12.5, "message": "FAIL [numeric] rope(d=8) | a<b", "reproducer": reproducer}


TRANSFORMERS = {
    "library": "transformers", "run": run({"transformers": "5.23.0", "torch": "2.15.0"}),
    "rows": [row("llama", "Llama <3>", "rope", ROTARY_COLUMNS), row("qwen", "Qwen2", "rope", ROTARY_COLUMNS),
             row("t5", "T5 buckets", "t5", T5_COLUMNS)],
    "cells": [cell("llama", "fp32-angle", True, 0.25),
              cell("llama", "exact-angle", False, 12.5, [failure()], [0, 0.5, 0.9, 1.5, 12.5]),
              cell("qwen", "fp32-angle", True, 0.5),
              cell("t5", "buckets", False, 0.0, [failure("index", "repro-t5")])],
}
TIMM = {"library": "timm", "run": run({"timm": "1.0.31"}), "rows": [row("rot", "RotaryEmbedding", "rope", ROTARY_COLUMNS)],
        "cells": [cell("rot", "fp32-angle", True, 0.75), cell("rot", "exact-angle", True, 0.5)]}
MATRIX = {"assembled": "2026-11-24 18:00 UTC", "libraries": [TRANSFORMERS, TIMM]}


def test_markdown_groups_rows_by_library_and_family():
    text = matrix.markdown(MATRIX)
    # Bin 3 holds positions [4, 8): the first over its bound.
    assert "| Llama <3> | `rope(d=8)` | conformant (0.25) | non-conformant (12.5), from p ≥ 2^2 |" in text
    assert "| Qwen2 | `rope(d=8)` | conformant (0.5) | not run |" in text
    assert "### transformers: rope" in text and "### transformers: t5" in text and "### timm: rope" in text
    # The t5 table has its own one column, and a failure that is not numeric says its kind.
    assert "| T5 buckets | `t5(d=8)` | non-conformant (index; numeric worst 0) |" in text
    for provenance in ("`tools/upstream-conformance.sh --cases 8`", "transformers 5.23.0", "torch 2.15.0", "timm 1.0.31",
                       "Linux, test CPU"):
        assert provenance in text


def test_the_summary_counts_cells_and_own_recipe_failures_apart_from_the_contrast():
    text = matrix.markdown(MATRIX)
    # transformers: 3 rows, 3 own-recipe cells of which the t5 one fails; the exact-angle failure is
    # the contrast and is not counted.
    assert "| [transformers](#transformers) | transformers 5.23.0, torch 2.15.0 | 2026-11-24 17:00 UTC | 3 | 0 | 2 of 3 cells |" in text
    assert "| [timm](#timm) | timm 1.0.31 | 2026-11-24 17:00 UTC | 1 | 0 | 1 of 1 cells |" in text


def test_failing_cells_keep_their_message_and_reproducer():
    text = matrix.markdown(MATRIX)
    assert "### transformers, llama: exact-angle" in text
    assert "FAIL [numeric] rope(d=8) \\| a<b" not in text  # code blocks keep the message as it is
    assert "FAIL [numeric] rope(d=8) | a<b" in text
    assert "tools/upstream-conformance.sh --replay 'x'" in text and "repro-t5" in text


def test_html_escapes_and_every_failing_cell_links_to_its_section():
    page = matrix.html(MATRIX)
    assert page.startswith("<!DOCTYPE html>")
    assert "Llama &lt;3&gt;" in page and "Llama <3>" not in page
    assert "a&lt;b" in page
    links = re.findall(r'<a href="#([^"]+)">non-conformant', page)
    assert len(links) == 2
    for target in links:
        assert page.count(f'id="{target}"') == 1
    # Shaded as report.html's grid: llama's 0.25 within 4x, qwen's 0.5 and timm's 0.75 within 2x.
    assert page.count('class="failed"') == 2  # the t5 cell and transformers' summary
    assert page.count('class="failed contrast"') == 1 and page.count('class="not-drawn contrast"') == 1
    assert page.count('class="within-4x"') == 1 and page.count('class="within-2x"') == 2
    assert page.count('class="within-2x contrast"') == 1 and page.count('class="pass"') == 1
    assert page.count('<article class="card"') == 2


def test_the_page_has_the_style_and_legend_of_report_html():
    page = matrix.html(MATRIX)
    assert (matrix.ROOT / "reports" / "report.css").read_text() in page
    for css in ("failed", "failed contrast", "within-2x", "within-4x", "within-10x", "loose", "bit-exact", "not-drawn"):
        assert f'<span class="swatch {css}">' in page


# The same values as tests/reports/number_text_test.cpp, so that both pages write numbers alike.
def test_numbers_are_written_as_report_html_writes_them():
    assert [matrix.grouped(n) for n in (0, 999, 1000, 485632469)] == ["0", "999", "1,000", "485,632,469"]
    assert [matrix.significant(x) for x in (0.99609375, 0.5, 1, 3.5, 123.4, 0.0952381, 0.00123449, -0.5, 0)] == [
        "0.996", "0.5", "1", "3.5", "123", "0.0952", "0.00123", "-0.5", "0"]
    assert [matrix.significant(x) for x in (797000, 2.9e14, 0.000123, 1e-300)] == ["7.97e5", "2.9e14", "1.23e-4", "1e-300"]
    assert [matrix.significant(x) for x in (999.6, 999.4, 0.00099951, 0.00099949)] == ["1e3", "999", "0.001", "9.99e-4"]
    assert [matrix.significant(x) for x in (float("inf"), float("-inf"), float("nan"))] == ["inf", "-inf", "nan"]
    assert [matrix.short_count(n) for n in (0, 9999, 10000, 99999, 5317024, 485632469)] == [
        "0", "9,999", "1.0e4", "1.0e5", "5.3e6", "4.9e8"]


# The bands of tests/reports/overview_grid_test.cpp.
def test_cells_are_shaded_in_the_bands_of_report_html():
    def shaded(ratio, conformant=True):
        return matrix.shade(cell("k", "c", conformant, ratio))
    assert [shaded(r) for r in (1.0, 0.5, 0.4999, 0.25, 0.2499, 0.1, 0.0999)] == [
        "within-2x", "within-2x", "within-4x", "within-4x", "within-10x", "within-10x", "loose"]
    assert shaded(0.02, conformant=False) == "failed"
    assert shaded(0) == "bit-exact"
    assert matrix.shade(None) == "not-drawn"


def test_the_table_counts_long_lists_instead_of_printing_them():
    spec = "rope(d=8,scaling=longrope(factor=4,orig=16,short=[1.05,1.1,1.2500000000000002,2.000000000000001],long=[2,4]))"
    assert matrix.brief(spec) == "rope(d=8,scaling=longrope(factor=4,orig=16,short=[4 values],long=[2,4]))"


def test_no_failures_says_none():
    quiet = {"assembled": "now", "libraries": [TIMM]}
    assert "## Non-conformant cells\n\nNone." in matrix.markdown(quiet)
    assert "<p>None.</p>" in matrix.html(quiet)


def ggml_report(backend, failed, failures=()):
    return {"run": {"machine": "AMD EPYC", "backend": "plugin:ggml-d99724f2b141", "commit": "39d550890c34",
                    "profile": "ci", "cases_planned": 1000, "seed": 5},
            "cells": [{"backend": backend, "dtype": "fp32", "failed_cases": failed, "elements": 10, "worst_ratio": 0.5,
                       "worst_ratio_by_position": [0.5]}],
            "failures": list(failures)}


def test_ggml_rows_come_from_its_two_reports(tmp_path):
    (tmp_path / "libraries").mkdir()
    (tmp_path / "libraries" / "timm.json").write_text(json.dumps(TIMM))
    ggml = tmp_path / "ggml"
    for folder, report in (("fp32-angle", ggml_report("ggml-rope-neox", 0)),
                           ("exact-angle", ggml_report("ggml-rope-neox-exact", 2, [{
                               "backend": "ggml-rope-neox-exact", "dtype": "fp32", "case": "rope(d=3)",
                               "replay": "peconform run --replay 'rope(d=3)'",
                               "first_failure": {"kind": "numeric", "element": 1, "position": "p=9",
                                                 "reference": "1", "actual": "2"}}]))):
        (ggml / folder).mkdir(parents=True)
        (ggml / folder / "report.json").write_text(json.dumps(report))
    (ggml / "README.md").write_text("Generated by the script on 2026-11-26; findings apart.\n")
    matrix.assemble(tmp_path)
    assembled = json.loads((tmp_path / "matrix.json").read_text())
    assert [lib["library"] for lib in assembled["libraries"]] == ["timm", "ggml"]
    ggml_lib = assembled["libraries"][1]
    assert [r["key"] for r in ggml_lib["rows"]] == ["ggml-rope-neox/fp32"]
    assert ggml_lib["run"]["date"] == "2026-11-26"
    by_column = {c["column"]: c for c in ggml_lib["cells"]}
    assert by_column["fp32-angle (theta=ggml)"]["conformant"]
    assert not by_column["exact-angle"]["conformant"]
    assert by_column["exact-angle"]["failures"][0]["reproducer"] == "peconform run --replay 'rope(d=3)'"
    text = (tmp_path / "matrix.md").read_text()
    assert "| ggml_rope_ext (NeoX pairs), fp32 |" in text


def test_ggml_mrope_kernels_are_rows_of_the_mrope_family(tmp_path):
    ggml = tmp_path / "ggml"
    for folder, suffix in (("fp32-angle", ""), ("exact-angle", "-exact")):
        report = ggml_report("ggml-rope-norm" + suffix, 0)
        # Sorted by backend as peconform writes them: the mrope kernels before the rope ones.
        report["cells"] = [dict(report["cells"][0], backend=kernel + suffix) for kernel in ("ggml-imrope", "ggml-mrope")] + report["cells"]
        (ggml / folder).mkdir(parents=True)
        (ggml / folder / "report.json").write_text(json.dumps(report))
    (ggml / "README.md").write_text("Generated by the script on 2026-11-26; findings apart.\n")
    rows = {r["key"]: r for r in matrix.ggml_library(ggml)["rows"]}
    assert list(rows) == ["ggml-rope-norm/fp32", "ggml-mrope/fp32", "ggml-imrope/fp32"]
    assert [r["family"] for r in rows.values()] == ["rope", "mrope", "mrope"]
    assert rows["ggml-imrope/fp32"]["spec"] == (
        "mrope(d=*,base=*,layout=half,sections=*,section_mode=interleaved,rot=*,scaling=none|linear,dtype=fp32)")
    assert rows["ggml-mrope/fp32"]["name"].startswith("ggml_rope_multi (MROPE")
    assert "ggml_mrope_cache_init" in rows["ggml-mrope/fp32"]["source"]


def test_ggml_vision_kernel_is_a_row_of_the_rope2d_family_after_the_others(tmp_path):
    ggml = tmp_path / "ggml"
    for folder, suffix in (("fp32-angle", ""), ("exact-angle", "-exact")):
        report = ggml_report("ggml-mrope" + suffix, 0)
        # Sorted by backend as peconform writes them: ggml-vision after the rope kernels.
        report["cells"] += [dict(report["cells"][0], backend="ggml-rope-neox" + suffix)] + [
            dict(report["cells"][0], backend="ggml-vision" + suffix, dtype=dtype) for dtype in ("fp16", "fp32")]
        (ggml / folder).mkdir(parents=True)
        (ggml / folder / "report.json").write_text(json.dumps(report))
    (ggml / "README.md").write_text("Generated by the script on 2026-11-26; findings apart.\n")
    library = matrix.ggml_library(ggml)
    rows = {r["key"]: r for r in library["rows"]}
    assert list(rows) == ["ggml-rope-neox/fp32", "ggml-mrope/fp32", "ggml-vision/fp16", "ggml-vision/fp32"]
    assert [r["family"] for r in rows.values()] == ["rope", "mrope", "rope2d", "rope2d"]
    assert rows["ggml-vision/fp16"]["spec"] == "rope2d(d=*,base=*,layout=half,dtype=fp16)"
    assert rows["ggml-vision/fp32"]["name"].startswith("ggml_rope_multi (VISION")
    assert {c["kernel"] for c in library["cells"] if c["key"] == "ggml-vision/fp32"} == {"ggml-vision", "ggml-vision-exact"}
    assert list(matrix.groups(library)) == ["rope", "mrope", "rope2d"]


def test_a_ggml_kernel_without_a_row_is_refused_by_name(tmp_path):
    ggml = tmp_path / "ggml"
    for folder in ("fp32-angle", "exact-angle"):
        (ggml / folder).mkdir(parents=True)
        (ggml / folder / "report.json").write_text(json.dumps(ggml_report("ggml-rope-vision", 0)))
    with pytest.raises(SystemExit, match="ggml-rope-vision is not one examples/ggml-plugin declares"):
        matrix.ggml_library(ggml)


CHROMIUM = pathlib.Path("/usr/bin/chromium")


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (scripts/install-deps.sh installs it)")
def test_the_page_never_scrolls_sideways_at_1400_pixels(tmp_path):
    long_case = "rope(d=128,base=500000,layout=half,scaling=custom(factors=[" + ",".join(["1.2074843"] * 64) + "]))"
    wide = dict(TRANSFORMERS, cells=[dict(c, spec=long_case, failures=[dict(f, message="FAIL " + long_case * 2,
                                                                               reproducer="replay '" + long_case + "'")
                                                                        for f in c["failures"]])
                                     for c in TRANSFORMERS["cells"]],
                rows=[dict(r, spec=long_case.replace(",", ", ")) for r in TRANSFORMERS["rows"]])
    page = matrix.html({"assembled": "now", "libraries": [wide, TIMM]})
    # The page has no script of its own; this copy reports the widths through its title.
    probe = "<script>document.title = document.documentElement.scrollWidth + ' ' + window.innerWidth;</script>"
    (tmp_path / "matrix.html").write_text(page.replace("</body>", probe + "</body>"))
    dom = subprocess.run(["timeout", "60", str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
                          f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,900", "--dump-dom",
                          (tmp_path / "matrix.html").as_uri()], capture_output=True, text=True)
    widths = re.search(r"<title>(\d+) (\d+)</title>", dom.stdout)
    assert widths, dom.stderr[-2000:]
    scroll_width, window_width = int(widths.group(1)), int(widths.group(2))
    assert window_width == 1400
    assert scroll_width <= window_width


def test_another_rows_recipe_is_a_dash_and_the_contrast_comes_last():
    # A family whose rows bring different recipes: each row shows a dash under the other's, "not
    # run" only where a column it is held to has no cell, and exact-angle stays the last column.
    exp_log = {"name": "fp32-angle (exp-log)", "keys": "precision=fp32-angle,theta=exp-log", "meaning": "exp-log"}
    fp64 = {"name": "fp64-angle", "keys": "precision=fp64-angle", "meaning": "float64 tables"}
    contrast = ROTARY_COLUMNS[1]
    library = {"library": "lib", "run": run({"lib": "1"}),
               "rows": [row("whisper", "Whisper", "sinusoidal", [exp_log, contrast]),
                        row("distilbert", "DistilBERT", "sinusoidal", [fp64, contrast])],
               "cells": [cell("whisper", "fp32-angle (exp-log)", True, 0.5), cell("distilbert", "fp64-angle", True, 0.75)]}
    text = matrix.markdown({"assembled": "now", "libraries": [library]})
    assert "| implementation | spec | fp32-angle (exp-log) | fp64-angle | exact-angle |" in text
    assert "| Whisper | `sinusoidal(d=8)` | conformant (0.5) | — | not run |" in text
    assert "| DistilBERT | `sinusoidal(d=8)` | — | conformant (0.75) | not run |" in text


def test_a_row_awaiting_a_recipe_is_listed_without_a_verdict():
    waiting = dict(row("sine", "SinePositionEncoding", "sinusoidal", [ROTARY_COLUMNS[1]]), awaiting="a powf recipe")
    library = dict(TIMM, rows=TIMM["rows"] + [waiting])
    text = matrix.markdown({"assembled": "now", "libraries": [library]})
    assert "| SinePositionEncoding | `sinusoidal(d=8)` | awaiting a recipe |" in text
    assert "- Awaiting a recipe, **SinePositionEncoding**: a powf recipe" in text
    assert "| [timm](#timm) | timm 1.0.31 | 2026-11-24 17:00 UTC | 1 | 1 | 1 of 1 cells |" in text
    assert "<li>Awaiting a recipe, <b>SinePositionEncoding</b>: a powf recipe</li>" in matrix.html(
        {"assembled": "now", "libraries": [library]})


def test_every_published_failure_under_a_librarys_own_recipe_has_its_finding():
    """FINDINGS.md explains each non-conformant cell outside the exact-angle contrast: a section
    headed by the cell's library that names the cell's row key, or its column (a section about
    every cell of a column)."""
    published = json.loads((matrix.ROOT / "reports" / "upstream" / "matrix.json").read_text())
    findings = (matrix.ROOT / "reports" / "upstream" / "FINDINGS.md").read_text()
    sections = {}
    for section in findings.split("\n## ")[1:]:
        heading = section.split("\n", 1)[0]
        sections.setdefault(re.split(r"[ :]", heading, maxsplit=1)[0], []).append(section)
    for library in published["libraries"]:
        for cell in library["cells"]:
            if cell["conformant"] or cell["column"] == "exact-angle":
                continue
            texts = sections.get(library["library"], [])
            assert any(f"`{cell['key']}`" in text or f"`{cell['column']}`" in text for text in texts), \
                f"{library['library']} {cell['key']} ({cell['column']}) has no finding in FINDINGS.md"


SHIPPED = "triton 3.9.0 interpreter, as shipped"
FAITHFUL = "triton 3.9.0 interpreter, GPU-faithful (bf16 arithmetic rounded once to nearest even)"


def triton_library(gpu):
    columns = [{"name": f"float32 cos/sin ({mode})", "keys": "precision=fp32-angle,theta=hf", "meaning": mode,
                "execution": execution} for mode, execution in (("as shipped", "shipped"), ("GPU-faithful", "gpu-faithful"))]
    return {"library": "liger-kernel", "run": dict(run({"liger-kernel": "0.8.5", "triton": "3.9.0"}),
                                                  executions=[SHIPPED, FAITHFUL], gpu=gpu),
            "rows": [row("llama/bf16", "liger_rotary_pos_emb, bf16", "rope", columns)],
            "cells": [dict(cell("llama/bf16", columns[0]["name"], False, 1.98, [failure("norm")]), execution=SHIPPED),
                      dict(cell("llama/bf16", columns[1]["name"], True, 0.99), execution=FAITHFUL)]}


def test_a_triton_library_says_its_kernels_ran_through_the_interpreter_only():
    page = {"assembled": "now", "libraries": [triton_library(gpu=None), TIMM]}
    text = matrix.markdown(page)
    line = ("- Execution: Triton's interpreter on the CPU only (no GPU in this run: no column is compiled Triton): "
            f"{SHIPPED}; {FAITHFUL}")
    assert line in text and text.count("- Execution:") == 1  # timm's code is not Triton
    assert "| liger_rotary_pos_emb, bf16 | `rope(d=8)` | non-conformant (1.98) | conformant (0.99) |" in text
    assert "Triton&#x27;s interpreter on the CPU only" in matrix.html(page)
    assert "compiled on NVIDIA H200" in matrix.markdown({"assembled": "now", "libraries": [triton_library("NVIDIA H200")]})


def test_the_triton_libraries_come_after_vllm(tmp_path):
    (tmp_path / "libraries").mkdir()
    for name in ("xformers", "vllm", "liger-kernel", "timm", "flash-attn", "unsloth"):
        (tmp_path / "libraries" / f"{name}.json").write_text(json.dumps(dict(TIMM, library=name)))
    matrix.assemble(tmp_path)
    assembled = json.loads((tmp_path / "matrix.json").read_text())
    assert [lib["library"] for lib in assembled["libraries"]] == ["timm", "vllm", "liger-kernel", "flash-attn", "unsloth",
                                                                  "xformers"]
