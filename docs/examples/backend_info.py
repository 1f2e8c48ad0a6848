"""Which backend runs the kernels, and why."""

# begin-example
import primitives as prim

info = prim.backend_info()
print(info)
# end-example

assert info["backend"] in ("cuda", "emulator")
assert info["sm_count"] >= 1
assert isinstance(info["reason"], str) and info["reason"]
