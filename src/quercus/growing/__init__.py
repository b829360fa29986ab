"""Builders: grow a tree node by node (Python loops over nodes, kernels inside)."""
