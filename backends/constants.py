"""Numbers every backend module and kernel shares, each defined once."""

ROUND_STEP = 1e-9  # entropies on the same point of this rounding grid are ties (rules §5.2)
