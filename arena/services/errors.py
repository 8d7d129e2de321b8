"""The one error a service raises for a request it cannot carry out."""

from __future__ import annotations


class ServiceError(ValueError):
    """A request could not be carried out; the message says why (and what to do)."""
