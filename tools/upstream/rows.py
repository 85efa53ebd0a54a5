"""What the upstream matrix is made of. A row is one implementation of one library in one
configuration, held to the columns its family has: the implementation's own recipe (its
precision class and the keys that say how it computes) and, where the family has angles,
exact-angle as the contrast.

Each library's adapter module (adapt_<library>.py) exposes LIBRARY (its name in the matrix),
versions() (the pinned packages as imported) and rows() (its Row list). An adapter only moves
arrays between peconform's layout and the library's and builds the library's module, layer or
graph: the computation under test is always the library's own code.
"""
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Column:
    name: str        # the column's heading, unique within its family's table
    keys: str        # spec keys appended to the row's spec ("" appends none)
    meaning: str     # one sentence: what the class says about how the code computes
    array: str = "torch"   # what check() hands the callable: "torch" or "numpy"
    place: str = "out"     # "out": the callable returns y; "in": it writes x
    # A Triton kernel's execution mode (peconform.triton.select: "shipped", "gpu-faithful"), which
    # must be chosen before triton is imported: conformance.py runs such cells in a process of
    # their own. "" for code that is not Triton.
    execution: str = ""

    def spec_text(self, spec):
        return spec if not self.keys else spec[:-1] + "," + self.keys + ")"


@dataclass(frozen=True)
class Row:
    library: str     # the library's name in the matrix
    family: str      # the spec family: rope, xpos, mrope, alibi, t5, sinusoidal, ...
    key: str         # names the row on the command line, unique within the library
    name: str        # what the matrix calls it: the upstream class or function and its configuration
    spec: str        # the spec the implementation computes, before any column's keys
    columns: tuple   # the Columns it is held to
    kernel: Callable  # () -> the peconform.check() callable (built when the row runs)
    source: str = ""  # where the code under test lives upstream: "package/module.py: name"
    # The recipe peconform lacks to judge this row, where it lacks one: the matrix lists the row as
    # awaiting it and runs none of its cells, since a failure for want of a recipe is ours, not
    # the library's.
    awaiting: str = ""
    # Where the row's own-recipe cells fail by a real bug of the library's that moves its float32
    # result away from the spec even at small positions: the FINDINGS.md heading that says so.
    # test_rows_agree_with_their_specs.py then requires the row to depart from its spec.
    finding: str = ""
    # A slow callable's bounds on each case's shape (peconform.check's max_tokens, batch * seq, and
    # max_elements, a tensor's elements): the Triton interpreter's cost is per program launched,
    # one per token or per token and head. 0: no bound.
    max_tokens: int = 0
    max_elements: int = 0


def exact_angle(what="float32"):
    """The contrast column of every angle family."""
    return Column("exact-angle", "precision=exact-angle",
                  f"angles exact to 2^-100 relative: {what} angles depart from them as positions grow, so "
                  "every such implementation fails here; the failure shows from where")
