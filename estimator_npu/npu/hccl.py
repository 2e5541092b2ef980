"""The adapter's gradient-split API (``npu_bridge.hccl``): how gradients are packed into
all-reduce segments."""
from estimator_npu.distribute.hccl import (get_split_strategy, reset_split_strategy,  # noqa: F401
                                           set_split_strategy_by_idx,
                                           set_split_strategy_by_size)
from estimator_npu.distribute.collective import local_rank, local_size, rank, size  # noqa: E402

WORLD_GROUP = "hccl_world_group"
_groups = {}


def _members(group):
    if group == WORLD_GROUP:
        return list(range(size()))
    if group not in _groups:
        raise ValueError(f"unknown hccl group {group!r}: create it with create_group first "
                         f"(the world group is {WORLD_GROUP!r})")
    return _groups[group]


def create_group(group, rank_num, rank_ids):
    """Registers ``group`` as the world ranks ``rank_ids`` (``rank_num`` of them)."""
    rank_ids = [int(r) for r in rank_ids]
    if len(rank_ids) != rank_num or not all(0 <= r < size() for r in rank_ids):
        raise ValueError(f"create_group({group!r}): rank_ids {rank_ids} must be {rank_num} "
                         f"world ranks in [0, {size()})")
    _groups[group] = rank_ids


def destroy_group(group):
    """Forgets a group made by ``create_group``."""
    _groups.pop(group, None)


def get_rank_size(group=WORLD_GROUP):
    """The number of ranks in ``group`` (the world: every process of the job)."""
    return len(_members(group))


def get_rank_id(group=WORLD_GROUP):
    """This process's rank in ``group``."""
    return _members(group).index(rank())


def get_local_rank_size(group=WORLD_GROUP):
    """The number of ranks on this host."""
    return local_size()


def get_local_rank_id(group=WORLD_GROUP):
    """This process's rank on its host."""
    return local_rank()


def get_world_rank_from_group_rank(group, group_rank_id):
    return _members(group)[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id, group):
    return _members(group).index(world_rank_id)
