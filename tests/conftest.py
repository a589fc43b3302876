import signal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config):
    # A shell that starts the suite in the background (`./scripts/test.sh &`) makes it ignore
    # SIGINT, and exec passes that on to every tcplab process a test starts: the tests that press
    # Ctrl-C would then test nothing. A handled signal is reset to the default on exec, so
    # handling it here is enough for the children to get Python's KeyboardInterrupt back.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def quickstart() -> Path:
    return ROOT / "scenarios" / "quickstart.toml"
