"""Python sample bots, each runnable as a script or with ``python -m``."""
