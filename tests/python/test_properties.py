"""peconform.properties(): the catalog's relations on callables that have no Spec."""
import numpy as np
import pytest

import peconform

D = 16


def rotation(angle_of_position):
    """A half-layout rotation of d = D whose pair i turns by angle_of_position(p) * 10000^(-2i/D)."""
    theta = 10000.0 ** (-np.arange(0, D, 2, dtype=np.float64) / D)

    def fn(x, positions):
        angles = angle_of_position(positions.astype(np.float64))[:, None] * theta
        cos, sin = np.cos(angles), np.sin(angles)
        a, b = x[:, : D // 2].astype(np.float64), x[:, D // 2 :].astype(np.float64)
        return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=1).astype(x.dtype)

    return fn


def test_rope_written_as_a_variant_holds_every_relation_it_is_given():
    result = peconform.properties(rotation(lambda p: p), kind="rotary", d=D, dtype="fp32", pairing="half", cases=50)
    assert result, str(result)
    assert "rotationPreservesNormPerPair" in result.held
    assert "innerProductDependsOnlyOnRelativePosition" in result.held


def test_a_square_angle_keeps_the_norm_and_loses_relative_position():
    result = peconform.properties(rotation(lambda p: p * p), kind="rotary", d=D, dtype="fp32", pairing="half",
                                  max_frequency=2**31, max_position=2**15, cases=50)
    assert not result
    assert "rotationPreservesNormPerPair" in result.held
    assert "innerProductDependsOnlyOnRelativePosition" in result.failed
    failure = result["innerProductDependsOnlyOnRelativePosition"]
    assert failure.counterexample, "a failure carries its shrunk counterexample"
    assert "innerProductDependsOnlyOnRelativePosition: failed" in str(result)


def test_bf16_goes_through_torch():
    torch = pytest.importorskip("torch")

    def scaled(x, positions):
        assert x.dtype == torch.bfloat16
        return x * 1.5

    result = peconform.properties(scaled, kind="rotary", d=D, dtype="bf16", cases=20)
    assert "rotationPreservesNormPerPair" in result.failed


def test_a_table_and_a_bias():
    freq = 10000.0 ** (-np.arange(0, D, 2, dtype=np.float64) / D)

    def table_in(dtype):
        def table(positions):
            angles = positions.astype(np.float64)[:, None] * freq
            return np.concatenate([np.sin(angles), np.cos(angles)], axis=1).astype(dtype)

        return table

    # A float64 angle stored as float32 meets exact-angle while p * theta stays far below 2^29
    # (its rounding, p * theta * 2^-53, is then well under half an ulp of float32)...
    assert peconform.properties(table_in(np.float32), kind="table", d=D, dtype="fp32", pairing="half", max_position=2**16,
                                cases=30)
    # ...but not stored as float64 at long positions, where exact-angle asks for the angle to 2^-53.
    as_fp64 = peconform.properties(table_in(np.float64), kind="table", d=D, dtype="fp64", pairing="half", cases=30)
    assert "sinusoidShiftIsAFixedBlockRotation" in as_fp64.failed

    def bias_on_sum(queries, keys):
        return -np.abs(queries + keys).astype(np.float64)[:, None] * np.ones((1, 4))

    result = peconform.properties(bias_on_sum, kind="bias", d=4, dtype="fp32", cases=30)
    assert result.failed, str(result)


def test_an_exception_fails_the_property_with_its_text():
    def broken(x, positions):
        raise RuntimeError("the variant is not written yet")

    result = peconform.properties(broken, kind="rotary", d=D, cases=5)
    assert result.failed
    assert any("not written yet" in outcome.counterexample for outcome in result.outcomes if outcome.verdict == "failed")


@pytest.mark.parametrize("keyword, value, named", [("kind", "rotation", "kind"), ("d", None, "d"), ("dtype", "fp8", "dtype"),
                                                   ("pairing", "zigzag", "zigzag"), ("theta", "pow", "pow"),
                                                   ("amplitude", "big", "amplitude")])
def test_a_bad_declaration_names_the_key_and_value(keyword, value, named):
    arguments = dict(kind="rotary", d=D)
    arguments[keyword] = value
    with pytest.raises(ValueError, match=named):
        peconform.properties(rotation(lambda p: p), **arguments)
