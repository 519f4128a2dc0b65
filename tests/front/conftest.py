"""Fixtures shared by the front-end tests."""

from __future__ import annotations

import pytest

from tests import mo_oracle
from tests.front import kaldi_nets


@pytest.fixture
def kaldi_mo_rng(monkeypatch, request):
    """The Kaldi test nets draw from the test's own seeded generator, so a test asking the
    recorded MO (tests/mo_oracle.py) builds the same models whatever ran before it."""
    monkeypatch.setattr(kaldi_nets, "RNG", mo_oracle.seeded(request))
