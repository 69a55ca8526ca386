"""A plug-in whose import fails, as a plug-in with a missing dependency would."""

import turnscope_no_such_dependency  # noqa: F401
