import pytest

from tests.drivers.kfd_client import Client


@pytest.fixture
def client():
    """A KFD client whose process has acquired the GPU's VM (test_kfd_ioctls.py has one that has not)."""
    c = Client()
    c.acquire()
    yield c
    c.close()
