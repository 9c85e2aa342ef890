"""What makes a native handler variant cheap to compile, checked against what it must keep.

The lowering reads each generated program once (`lower._program`): its constant expressions are
evaluated without compiling them, and must have exactly the values Python gives them. The
optimisation pipeline is O1's with the loop vectorizer (`jit.optimise`): the lane loops must still
come out vectorized, since that halves the handlers' run time.
"""
import ast
import re

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir

from gpubench.compiler.backend import runtime as rt
from gpubench.compiler.backend.cache import pseudocode
from gpubench.compiler.native import jit, lower

SOURCE = '''
_k0 = np.array([5, 6, 7], dtype=np.uint32)
_k1 = np.uint32(7)
_k2 = (_k1, np.float32(0.5))


def f(S0):
    a = np.uint32(2)
    b = np.uint32(4286578688).view(np.float32)
    c = (np.int64(-3), rt.F32, _k2)
    d = -2147483648
    e = _k0[np.clip(S0, 0, 2)]
    g = (1 << 31) + _k1
    h = S0 + _k1
    i = np.uint64(9218868437227405312).view(np.float64) * 0.5
    return (a, b, c, d, e, g, h, i)
'''
CONSTANT = {"a", "b", "c", "d", "g", "i"}


def _python_values() -> dict:
    """The model: each assignment's value as Python computes it (module code run, then the expression)."""
    namespace = {"np": np, "rt": rt, "object": object}
    tree = ast.parse(SOURCE)
    exec(compile(ast.Module([n for n in tree.body if isinstance(n, ast.Assign)], []), "<model>", "exec"), namespace)
    fndef = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    return {s.targets[0].id: eval(ast.unparse(s.value), dict(namespace)) for s in fndef.body
            if isinstance(s, ast.Assign) and s.targets[0].id in CONSTANT}


def _same(x, y) -> bool:
    if isinstance(x, tuple):
        return isinstance(y, tuple) and len(x) == len(y) and all(_same(a, b) for a, b in zip(x, y))
    if isinstance(x, np.generic):
        return type(x) is type(y) and np.asarray(x).tobytes() == np.asarray(y).tobytes()
    return type(x) is type(y) and x == y


def test_constant_expressions_have_pythons_values():
    program = lower._program(SOURCE, "f")
    model = _python_values()
    for stmt in program.fndef.body[:-1]:
        name = stmt.targets[0].id
        assert program.is_constant(stmt.value) == (name in CONSTANT), name
        if name in CONSTANT:
            assert _same(program.value(stmt.value), model[name]), name
    table = next(s.value for s in program.fndef.body if s.targets[0].id == "e").value
    assert program.is_constant(table) and np.array_equal(program.value(table), np.array([5, 6, 7], np.uint32))
    assert lower._program(SOURCE, "f") is program  # parsed once per source


def test_lane_loops_still_vectorize():
    texts = pseudocode("rdna3")
    for enum, name in (("VOP2Op", "V_ADD_F32_E32"), ("VOP2Op", "V_AND_B32_E32"), ("VOP3Op", "V_FMA_F32")):
        module = ir.Module(name=name)
        module.triple = llvm.get_process_triple()
        module.data_layout = str(jit.target_machine().target_data)
        lower.lower_instruction(module, "rdna3", enum, name, texts[enum, name])
        parsed = llvm.parse_assembly(str(module))
        jit.optimise(parsed)
        assert re.search(r"<\d+ x (i32|float)>", str(parsed)), f"{name}: the lane loop is not vectorized"
