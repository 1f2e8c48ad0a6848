"""The kernel sources of the selection family: ``kernels/selection/`` holds one file per variant
(``select.cuh``: what they share), each the source of one group of the names :mod:`._plans`
instantiates."""

from __future__ import annotations

#: the device-wide radix select and the ordering of a row's winners: select_pass, select_choose,
#: select_rank_sort (``_plans.radix_names``)
RADIX_SELECT = "selection/radix_select.cu"
#: the sample filter in front of the radix select: select_sample, select_filter,
#: select_filter_done (``_plans.filter_names``)
FILTER = "selection/filter.cu"
#: a block per short row: select_rows (``_plans.rows_names``)
ROWS = "selection/rows.cu"
#: a warp per short row, small k: select_warp_rows (``_plans.warp_rows_names``)
WARP_ROWS = "selection/warp_rows.cu"
#: block-local candidate sets, small k: select_small_k (``_plans.small_names``)
SMALL_K = "selection/small_k.cu"
#: the order statistics of quantile and median: quantile_first, quantile_start, quantile_pass,
#: quantile_choose, quantile_bits, quantile_finish; the partition by them: quantile_part_count,
#: quantile_part_scatter (``_quantile.names``)
QUANTILE = "selection/quantile.cu"
#: the split of rows by one kth, digit by digit: split_first, split_take, split_bounds,
#: split_scatter, split_hist, split_choose (``_partition.split_names``)
SPLIT = "selection/split.cu"
