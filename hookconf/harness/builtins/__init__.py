"""§2, §17, §19.2 builtin archives: the lock, deterministic signed ``.moext`` packing, the
``builtins.run`` runner and its judge."""

from hookconf.harness.builtins.oracles import judge_builtin
from hookconf.harness.builtins.runner import archive_request, run_builtin_case

__all__ = ["archive_request", "judge_builtin", "run_builtin_case"]
