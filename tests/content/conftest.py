"""Lesson-code tests: import the lesson modules the way slide cells do (top-level modules)."""

import os
import sys
from pathlib import Path

LESSON_DIR = Path(__file__).resolve().parents[2] / "content" / "transformer"

# Nothing may be fetched at run time: transformers must use the local package files only.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

if str(LESSON_DIR) not in sys.path:
    sys.path.insert(0, str(LESSON_DIR))

import pytest  # noqa: E402

from lesson_build import Built, build_lesson  # noqa: E402


@pytest.fixture(scope="session")
def lesson(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The real lesson built once (cells cached in .cache/ like a user's build)."""
    return build_lesson(tmp_path_factory.mktemp("lesson"))
