"""The lesson's own module: cells import it (the lesson folder is importable)."""


def compound(rate: float, years: int) -> float:
    """What 1 becomes after `years` years at `rate` a year."""
    return (1 + rate) ** years
