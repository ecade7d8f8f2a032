"""The checker's version: in every report, in the User-Agent, in the services' answers."""

__version__ = "0.1.0"

__all__ = ["__version__"]
