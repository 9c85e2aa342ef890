"""Re-ask llvm-mc-22 about a sample of the committed corpus: catches drift between LLVM releases.

Runs only where llvm-mc-22 is installed (tools/setup.sh installs it; CI has it).
"""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.llvm
@pytest.mark.skipif(not shutil.which("llvm-mc-22"), reason="llvm-mc-22 not installed")
@pytest.mark.skipif(not (REPO.parent / "shared" / "isa-spec" / "rdna3.json").exists(), reason="no spec data")
def test_corpus_sample_still_matches_llvm():
    result = subprocess.run([sys.executable, str(REPO / "tools" / "build_corpus.py"), "--all", "--check", "40"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
