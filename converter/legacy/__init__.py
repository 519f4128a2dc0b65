"""Run legacy Model Optimizer extensions unmodified: `mo.*`, `extensions.*` and
`openvino.tools.mo.*` imports resolve onto the converter while extensions load and run
(`legacy_imports`). The name mapping is data, in converter.legacy.names; docs/migration.md
lists what is supported.

MO's transformation stand-ins (mo_passes), and extgen's layout change they order against, are
defined here, outside any extension scope: a scope restores the pass registry on exit, so a
built-in pass whose module was first imported inside one would be dropped for good."""

from converter.legacy import mo_passes as _mo_passes  # noqa: F401
from converter.legacy import replacement as _replacement  # noqa: F401  (anchors register here)
from converter.legacy.importer import LegacyImportError, legacy_imports

__all__ = ["LegacyImportError", "legacy_imports"]
