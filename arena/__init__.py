"""arena: an UNO bot-battle platform."""

__version__ = "0.1.0"
