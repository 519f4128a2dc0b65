"""extgen: add a custom operation to an OpenVINO deployment and see it run end to end."""

from converter.version import __version__

__all__ = ["__version__"]
