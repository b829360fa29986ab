"""Split search: find the best split of one node (orchestration over the compiled kernels)."""
