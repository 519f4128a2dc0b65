"""Back phase: constant folding into Consts, precision, versioning, IR emission."""
