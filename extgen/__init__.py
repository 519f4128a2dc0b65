"""extgen: add a custom operation to an OpenVINO deployment and see it run end to end."""

__version__ = "0.1.0"
