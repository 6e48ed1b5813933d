"""JAX backend (CPU or GPU), with 64-bit types enabled so entropies stay float64."""

from __future__ import annotations

from backends.base import Backend


class JaxBackend(Backend):
    def __init__(self) -> None:
        import jax

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        self._jax = jax
        self._jnp = jnp
        device = jax.devices()[0]
        super().__init__(name="jax", xp=jnp, device=device, version=jax.__version__)

    def asarray(self, obj, dtype=None):
        if isinstance(dtype, str):
            dtype = getattr(self._jnp, dtype)
        return self._jax.device_put(self._jnp.asarray(obj, dtype=dtype), self.device)

    def compile(self, func, static_argnames=()):
        return self._jax.jit(func, static_argnames=tuple(static_argnames))

    def on_accelerator(self) -> bool:
        return self.device.platform != "cpu"

    def describe(self) -> dict:
        return {"name": self.name, "version": self.version, "device": f"{self.device.platform}:{self.device.id}"}

    def row_histogram(self, codes, weights, n_bins: int):
        jnp = self._jnp
        codes = jnp.asarray(codes)
        rows, m = codes.shape
        weights = jnp.broadcast_to(jnp.asarray(weights, dtype=jnp.float64), (rows, m))
        flat = (codes.astype(jnp.int64) + (jnp.arange(rows, dtype=jnp.int64) * n_bins)[:, None]).ravel()
        out = jnp.zeros(rows * n_bins, dtype=jnp.float64).at[flat].add(weights.ravel())
        return out.reshape(rows, n_bins)

    def stable_top_k(self, keys, k: int):
        jnp = self._jnp
        order = jnp.argsort(jnp.asarray(keys), descending=True, stable=True)
        return order[:k].astype(jnp.int64)
