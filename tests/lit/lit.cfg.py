# -*- Python -*- lit configuration of blockjit's FileCheck suite.
import os
import shutil

import lit.formats

config.name = "blockjit"
config.test_format = lit.formats.ShTest(not lit_config.isWindows)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.blockjit_build_dir, "tests", "lit")

# blockjit's tools first, then LLVM's FileCheck, not, count, split-file.
config.environment["PATH"] = os.pathsep.join(
    [config.blockjit_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%blockjit_src", config.blockjit_src_dir))
config.substitutions.append(("%blockjit_build", config.blockjit_build_dir))

# Tests that assemble PTX need ptxas; the CUDA toolkit puts it in /usr/local/cuda.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
