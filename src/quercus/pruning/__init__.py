"""Pruning of fitted flat trees."""
