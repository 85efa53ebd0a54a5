"""peconform.properties(): the catalog's relations on callables that have no Spec."""
import re

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


def axial_2d(x, positions):
    """2-D axial RoPE on D elements: half-layout pairs 0..D/4-1 turn with x, the rest with y."""
    quarter = D // 4
    theta = 100.0 ** (-np.arange(quarter, dtype=np.float64) / quarter)
    angles = np.concatenate([positions[:, :1] * theta, positions[:, 1:2] * theta], axis=1).astype(np.float64)
    cos, sin = np.cos(angles), np.sin(angles)
    a, b = x[:, : D // 2].astype(np.float64), x[:, D // 2 :].astype(np.float64)
    return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=1).astype(x.dtype)


def test_two_axes_hand_the_callable_rows_by_axes_positions():
    seen = []

    def recording(x, positions):
        seen.append((positions.shape, positions.dtype))
        return axial_2d(x, positions)

    result = peconform.properties(recording, kind="rotary", d=D, pairing="half", axes=2, max_position=1023,
                                  negative_positions=True, cases=20)
    assert result, str(result)
    assert {shape for shape, _ in seen} == {(1, 2)} and {dtype for _, dtype in seen} == {np.dtype(np.int64)}
    assert result.along("innerProductDependsOnlyOnRelativePosition") == {0: "held", 1: "held"}
    assert result.across("rotationsComposeAdditively") == {(0, 1): "held"}
    assert "axes=2" in result.variant


def test_a_turn_nonlinear_in_one_axis_breaks_that_axis_only():
    def quadratic_in_y(x, positions):
        squared = positions.copy()
        squared[:, 1] = squared[:, 1] ** 2
        return axial_2d(x, squared)

    result = peconform.properties(quadratic_in_y, kind="rotary", d=D, pairing="half", axes=2, max_position=1023,
                                  max_frequency=1024, cases=50)
    assert result.along("innerProductDependsOnlyOnRelativePosition") == {0: "held", 1: "failed"}
    assert "innerProductDependsOnlyOnRelativePosition" in result.failed
    assert "along axis 1" in result["innerProductDependsOnlyOnRelativePosition[axis 1]"].counterexample


def test_a_bias_over_two_axes_gets_query_and_key_rows_by_axes():
    def manhattan(queries, keys):
        assert queries.shape == keys.shape and queries.shape[1] == 2
        return -np.abs(queries - keys).sum(axis=1).astype(np.float64)[:, None] * np.array([[0.5, 0.25]])

    result = peconform.properties(manhattan, kind="bias", d=2, axes=2, max_position=4096, cases=30)
    assert result, str(result)
    assert result.along("alibiBiasIsTranslationInvariant") == {0: "held", 1: "held"}


@pytest.mark.parametrize("axes", [0, -1, 17, 2.0, "2", True])
def test_a_bad_axes_is_named(axes):
    with pytest.raises(peconform.VariantError, match=f"axes: {axes!r}" if not isinstance(axes, int) or isinstance(axes, bool)
                       else f"axes: {axes} is not a count"):
        peconform.properties(axial_2d, kind="rotary", d=D, axes=axes)


def test_a_return_of_the_wrong_shape_fails_with_wrong_return():
    def one_axis_too_few(x, positions):
        return axial_2d(x, positions)[:, :-1]

    result = peconform.properties(one_axis_too_few, kind="rotary", d=D, pairing="half", axes=2, cases=5)
    failures = [outcome for outcome in result.outcomes if outcome.verdict == "failed"]
    assert failures and all("wrong-return" in outcome.counterexample for outcome in failures)
    assert "(1, 15)" in failures[0].counterexample

    result = peconform.properties(lambda x, positions: "a string", kind="rotary", d=D, axes=2, cases=5)
    failures = [outcome for outcome in result.outcomes if outcome.verdict == "failed"]
    assert failures and all("wrong-return: the variant returned str" in outcome.counterexample for outcome in failures)


def _one_axis_table(positions):
    angles = positions.astype(np.float64)[:, None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1).astype(np.float32)


def _one_axis_bias(queries, keys):
    return -np.abs(queries - keys).astype(np.float64)[:, None] * np.array([[0.5, 0.25]])


# Per kind: the calls the catalog relations made at 964a196, before issue 49 (peconform's tree then,
# /usr/bin/python3, the recording below), and the SHA-256 of their positions and inputs in call order.
ONE_AXIS_CALLS = {
    "rotary": (157, "7ded9733ac281ae50967f4ae6fd82113f3636c9fe31e7cc8d9b09c5ab64c9d38"),
    "table": (44, "c6f0b2dc3a8b57b4574e59d5f08c07dc3e4a1810f9091e093a8bef7950879554"),
    "bias": (20, "4427f3a67d1a1d956a184bcb0c2a2db55ec3f46c2a7275ffa31cc977fd8914ac"),
}


@pytest.mark.parametrize("kind, fn, d, declared", [
    ("rotary", rotation(lambda p: p), D, dict(pairing="half", negative_positions=True)),
    ("table", _one_axis_table, D, dict(pairing="half", max_position=2**16)),
    ("bias", _one_axis_bias, 2, {}),
])
def test_one_axis_draws_the_cases_it_drew_before_axes_existed(kind, fn, d, declared):
    """axes=1 is the one-axis behaviour bit for bit: the catalog relations call the variant with
    the same positions and inputs, in the same order, for the same seed (reversibility, new with
    the axes, runs after them)."""
    import hashlib

    calls = []

    def recording(*arguments):
        calls.append(b"".join(argument.tobytes() for argument in arguments if argument is not None))
        return fn(*arguments)

    peconform.properties(recording, kind=kind, d=d, seed=4949, cases=10, **declared)
    count, digest = ONE_AXIS_CALLS[kind]
    assert hashlib.sha256(b"".join(calls[:count])).hexdigest() == digest
    assert kind == "rotary" or len(calls) == count


def test_each_axis_can_have_its_own_range():
    """A y axis of period 4 collides over [0, 1023] and not over [0, 3]; positions stay in range."""
    largest = np.zeros(2, dtype=np.int64)

    def periodic_y(x, positions):
        largest[:] = np.maximum(largest, np.abs(positions).max(axis=0))
        quarter = D // 4
        theta_x = 100.0 ** (-np.arange(quarter, dtype=np.float64) / quarter)
        theta_y = 2 * np.pi / 4 * np.array([1, 1, 3, 3])[:quarter]
        angles = np.concatenate([positions[:, :1] * theta_x, positions[:, 1:2] * theta_y], axis=1)
        cos, sin = np.cos(angles), np.sin(angles)
        a, b = x[:, : D // 2].astype(np.float64), x[:, D // 2 :].astype(np.float64)
        return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=1).astype(x.dtype)

    reversible = "distinctPositionsGiveDistinctRotations"
    wide = peconform.properties(periodic_y, kind="rotary", d=D, pairing="half", axes=2, max_position=1023,
                                max_frequency=5, cases=100)
    assert wide[reversible].verdict == "failed", str(wide[reversible])
    largest[:] = 0
    narrow = peconform.properties(periodic_y, kind="rotary", d=D, pairing="half", axes=2, max_position=(1023, 3),
                                  max_frequency=5, cases=100)
    assert narrow[reversible].verdict == "held", str(narrow[reversible])
    assert list(largest) == [1023, 3]
    assert "max_position=(1023,3)" in narrow.variant


@pytest.mark.parametrize("max_position, named", [((16,), "has 1 entries; the declaration has axes=2"),
                                                  ((16, "16"), "holds '16', which is not an integer"),
                                                  (2.5, "neither an integer nor one integer per axis"),
                                                  ((16, 0), "leaves axis 1 no position but 0")])
def test_a_per_axis_range_of_the_wrong_shape_or_type_is_named(max_position, named):
    with pytest.raises(peconform.VariantError, match=re.escape(named)):
        peconform.properties(axial_2d, kind="rotary", d=D, axes=2, max_position=max_position)
