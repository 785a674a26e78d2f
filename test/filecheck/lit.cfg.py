# lit configuration for tilec's FileCheck tests: `lit test/filecheck -v` after `pip install -e .[test]`.
import os
import shutil
import sys

import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "Inputs", "plugins"]
config.test_source_root = os.path.dirname(__file__)
repo_root = os.path.dirname(os.path.dirname(config.test_source_root))

# tilec-opt must be on PATH (pip install -e .); fall back to running the module from the checkout.
tool = shutil.which("tilec-opt")
if tool is None:
    tool = f"{sys.executable} -m tilec.cli"
config.substitutions.append(("tilec-opt", tool))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%plugins", os.path.join(config.test_source_root, "plugins")))
config.substitutions.append(("FileCheck", "filecheck"))

config.environment["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
config.environment["PYTHONPATH"] = os.pathsep.join([repo_root, os.environ.get("PYTHONPATH", "")])
# verify after every pass, tilec's own included (the default trusts them: see PassManager)
config.environment["TILEC_VERIFY_EACH"] = "1"
for var in ("HOME", "TILEC_CACHE_DIR", "CUDA_PATH", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
