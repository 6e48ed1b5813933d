"""The web board and HTTP API (``termo serve``): an ASGI app that only calls the library."""
