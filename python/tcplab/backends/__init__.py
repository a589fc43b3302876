"""Back-ends that run a scenario somewhere other than the simulator (``linux``: the machine's own
kernel TCP between network namespaces, with tcplab's link emulator)."""
