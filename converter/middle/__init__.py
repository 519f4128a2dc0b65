"""Middle phase: tensor (data) nodes, partial inference, graph-level rewrites."""
