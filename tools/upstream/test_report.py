"""The matrix writer: every model a row, every column a cell, the run's provenance, and each
non-conformant cell's failure and reproducer, in Markdown and in escaped HTML. Needs no upstream
package (ctest runs it with Debian's Python)."""
import report

RUN = {
    "date": "2026-11-24 17:00 UTC", "command": "tools/upstream-conformance.sh --cases 8",
    "machine": "Linux, test CPU, 2 CPUs", "python": "3.11.2",
    "versions": {"transformers": "5.23.0", "torch": "2.15.0", "peconform": "abc1234"},
    "profile": "ci", "cases": 8, "seed": 7,
    "columns": [{"name": "fp32-angle", "keys": "precision=fp32-angle,theta=hf", "meaning": "float32 angles"},
                {"name": "exact-angle", "keys": "precision=exact-angle", "meaning": "exact angles"}],
}


def cell(key, model, column, conformant, ratio, failures=()):
    return {"model": model, "key": key, "column": column, "config_spec": "rope(d=8,base=10000,layout=half)",
            "spec": f"rope(d=8,base=10000,layout=half,{column})", "kernel": "transformers.LlamaRotaryEmbedding+apply",
            "verdict": "conformant" if conformant else "non-conformant", "conformant": conformant, "elements": 100,
            "worst_ratio": ratio, "seconds": 1.0, "failures": list(failures), "failure_count": len(failures)}


FAILURE = {"case": "rope(d=8) | batch=1 seq=1", "element": 3, "position": 131071, "reference": "0.5", "actual": "0.49",
           "ratio": 12.5, "message": "FAIL [numeric] rope(d=8) | a<b", "reproducer": "tools/upstream-conformance.sh --replay 'x'"}

CELLS = [cell("llama", "Llama <3>", "fp32-angle", True, 0.25),
         dict(cell("llama", "Llama <3>", "exact-angle", False, 12.5, [FAILURE]), worst_ratio_by_position=[0, 0.5, 0.9, 1.5, 12.5]),
         cell("qwen", "Qwen2", "fp32-angle", True, 0.5)]


def test_markdown_has_a_row_per_model_and_the_failures_reproducer():
    text = report.markdown(RUN, CELLS)
    # Bin 3 holds positions [4, 8): the first over its bound.
    assert "| Llama <3> | `rope(d=8,base=10000,layout=half)` | conformant (0.25) | non-conformant (12.5), from p ≥ 2^2 |" in text
    assert "| Qwen2 | `rope(d=8,base=10000,layout=half)` | conformant (0.5) | not run |" in text
    for provenance in ("2026-11-24 17:00 UTC", "`tools/upstream-conformance.sh --cases 8`", "transformers 5.23.0",
                       "torch 2.15.0", "Linux, test CPU"):
        assert provenance in text
    assert "### Llama <3>: exact-angle" in text
    assert "FAIL [numeric] rope(d=8) \\| a<b" not in text  # code blocks keep the message as it is
    assert "FAIL [numeric] rope(d=8) | a<b" in text
    assert "tools/upstream-conformance.sh --replay 'x'" in text


def test_html_escapes_and_links_each_failing_cell():
    page = report.html(RUN, CELLS)
    assert page.startswith("<!DOCTYPE html>")
    assert "Llama &lt;3&gt;" in page and "Llama <3>" not in page
    assert "a&lt;b" in page
    assert '<a href="#llama-exact-angle">non-conformant (12.5), from p ≥ 2^2</a>' in page
    assert 'id="llama-exact-angle"' in page
    assert page.count('class="pass"') == 2 and page.count('class="fail"') == 1 and page.count('class="none"') == 1


def test_the_table_counts_long_lists_instead_of_printing_them():
    spec = "rope(d=8,scaling=longrope(factor=4,orig=16,short=[1.05,1.1,1.2500000000000002,2.000000000000001],long=[2,4]))"
    assert report.brief(spec) == "rope(d=8,scaling=longrope(factor=4,orig=16,short=[4 values],long=[2,4]))"


def test_no_failures_says_none():
    assert "## Non-conformant cells\n\nNone." in report.markdown(RUN, CELLS[:1])
    assert "<p>None.</p>" in report.html(RUN, CELLS[:1])
