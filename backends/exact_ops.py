"""Operations of the exact (branch-and-bound) solver, mixed into every :class:`backends.base.Backend`."""


class ExactSearchOps:
    """The exact solver's compiled operations (being built); methods of every backend."""
