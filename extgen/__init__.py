"""extgen: add a custom operation to an OpenVINO deployment and see it run end to end."""

__all__ = ["__version__"]


def __getattr__(name: str) -> str:  # `extgen.__version__`, read on first use
    if name == "__version__":
        from converter.version import installed_version

        return installed_version()
    raise AttributeError(name)
