"""The suite runs with --import-mode=importlib, which puts no test folder on
sys.path; skyline_builders.py beside this file is imported by name."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
