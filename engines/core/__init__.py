"""What every game engine shares: the kernel decorator, the random streams,
variant-file validation and the contract a game registers with."""
