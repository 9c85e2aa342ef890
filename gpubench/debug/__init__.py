"""Debugging kernels instruction by instruction: a scriptable `Session` over one dispatch (break,
step, reverse, inspect), execution traces, timelines and a fidelity report.

    from gpubench.debug import Session
    session = Session.load(dev, "saxpy.hsaco", "saxpy", grid=(1,), block=(64,), args=(2.0, x, y, 64))
    print(session.command("break v_fmac_f32"), session.command("continue"), session.command("p/f v1"))
    session.stepi(); session.reverse_stepi(); session.reverse_to_write("v1")
"""
from gpubench.debug.session import Session, Stop

__all__ = ["Session", "Stop"]
