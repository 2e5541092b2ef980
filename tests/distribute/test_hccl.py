"""Gradient segments: the split strategies, their validation, and the segmenting helpers."""
import pytest

from estimator_npu.distribute import hccl
from estimator_npu.train.update_rules import Layout


@pytest.fixture(autouse=True)
def _reset():
    hccl.reset_split_strategy()
    yield
    hccl.reset_split_strategy()


def test_default_is_the_adapters_two_segments():
    assert hccl.get_split_strategy() == ("size", (96.54, 3.46))
    # MLP 784-512-512-10: [w1 b1 w2] hold 99.2 % of the bytes; the rest is the tail
    sizes = [784 * 512, 512, 512 * 512, 512, 512 * 10, 10]
    assert hccl.segment_tensors([4 * n for n in sizes]) == [(0, 3), (3, 6)]


def test_by_size_ends_segments_where_the_cumulative_share_is_reached():
    hccl.set_split_strategy_by_size([50, 30, 20])
    assert hccl.segment_tensors([10] * 10) == [(0, 5), (5, 8), (8, 10)]
    # one big tensor swallows several thresholds: fewer, never empty, segments
    assert hccl.segment_tensors([90, 5, 5]) == [(0, 1), (1, 3)]
    assert hccl.segment_tensors([100]) == [(0, 1)]
    assert hccl.segment_tensors([]) == []


def test_by_idx_and_by_size_wins():
    hccl.set_split_strategy_by_idx([1, 4, 5])
    assert hccl.get_split_strategy() == ("idx", (1, 4, 5))
    assert hccl.segment_tensors([8] * 6) == [(0, 2), (2, 5), (5, 6)]
    with pytest.raises(ValueError, match=r"last index must be the last gradient, 6 "
                                         r"\(there are 7 gradients\)"):
        hccl.segment_tensors([8] * 7)
    hccl.set_split_strategy_by_size([50, 50])
    assert hccl.get_split_strategy() == ("size", (50.0, 50.0))
    assert hccl.segment_tensors([8] * 6) == [(0, 3), (3, 6)]


@pytest.mark.parametrize("values, exc, match", [
    ([60, 30], ValueError, r"must add up to 100, got \[60, 30\] \(sum 90\)"),
    ([100, 0], ValueError, "entries must be > 0"),
    ([], ValueError, "must not be empty"),
    ([10] * 10, ValueError, "gives 10 segments; at most 8"),
    (["50", "50"], TypeError, "entries must be numbers"),
    (100, TypeError, "dataSizeList must be a list"),
])
def test_by_size_validation(values, exc, match):
    with pytest.raises(exc, match=match):
        hccl.set_split_strategy_by_size(values)


@pytest.mark.parametrize("values, exc, match", [
    ([3, 3], ValueError, "strictly increasing"),
    ([-1, 3], ValueError, ">= 0"),
    ([1.0, 3], TypeError, "entries must be ints"),
    (list(range(9)), ValueError, "at most 8"),
    ("12", TypeError, "idxList must be a list"),
])
def test_by_idx_validation(values, exc, match):
    with pytest.raises(exc, match=match):
        hccl.set_split_strategy_by_idx(values)


def test_group_must_be_the_world_group():
    with pytest.raises(ValueError, match="hccl_world_group"):
        hccl.set_split_strategy_by_size([100], group="other")


def test_segment_layouts_maps_tensors_onto_buffers():
    f32 = Layout(["a", "b", "c"], [(4,), (2, 2), (2,)])     # offsets 0, 4, 8; size 10
    f64 = Layout(["d", "e"], [(3,), (1,)])                  # offsets 0, 3; size 4
    hccl.set_split_strategy_by_idx([0, 3, 4])
    # segment [b c d] spans both buffers: one range per buffer
    assert hccl.segment_layouts([f32, f64], [4, 8]) == [
        (0, 0, 4), (0, 4, 10), (1, 0, 3), (1, 3, 4)]
    hccl.reset_split_strategy()
    assert hccl.segment_layouts([f32], [4]) == [(0, 0, 10)]   # c is 20 %: one segment
    tail = Layout(["w", "b"], [(10, 10), (3,)])                # b is 2.9 %: the tail
    assert hccl.segment_layouts([tail], [4]) == [(0, 0, 100), (0, 100, 103)]
