"""Front phase: framework loaders, extractors and front transformations."""
