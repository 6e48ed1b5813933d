"""The web board and the JSON API behind `termo serve` (see docs/web.md): `web.app.create_app`."""
