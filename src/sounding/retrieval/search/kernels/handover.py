"""Handing the GIL from one searching thread to another without a sleep: a turn kept in an int64 cell.

Client threads that each search one query at a time hold the GIL for the Python part of a query (the
call, its arguments, the results) and let it go for the compiled kernel. CPython (3.11) gives a thread
that comes back from the kernel while another holds the GIL no spinning: it sleeps on a condition
variable until the GIL is let go, and waking it costs tens of µs on a virtual machine
(benchmarks/gil_handover.py: a 41–51 µs round trip between two threads), several times a short query's
kernel. Two threads then queue on the GIL instead of searching side by side.

So a kernel that lets the GIL go takes part in a turn: it gives the turn up as it starts (the GIL has
been let go by then) and, once done, waits for it without sleeping — spinning on the cell — before it
returns to take the GIL. The thread holding the turn is the one running (or about to run) Python; it
keeps the turn until its next kernel starts, so the waiting thread takes the GIL just after that thread
let it go, uncontended. A thread that leaves (or runs Python for long) keeps the turn: a waiter takes it
over after SPIN rounds (~100 µs here; the length of a pause differs between processors), once, and then
waits for the GIL as before. The turn decides nothing but when a thread asks for the GIL: the GIL still
guards every Python object, and no result depends on the turn.

numba has no atomic operations for CPU code: the compare-and-swap, the atomic load and the pause below are
LLVM's, through numba's `intrinsic` (hand-written: no maintained library offers them to numba).
"""
from __future__ import annotations

import itertools
import platform

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

SPIN = 1 << 11  # rounds a waiter spins before it takes the turn over

# One turn for the process (the GIL is one): 0, nobody's; else the holding thread's mark.
TURN = np.zeros(1, np.int64)

# Whether threads search side by side now: the mark of the thread that searched last, and the queries left
# before a thread searching on its own is taken to be alone. Alone, it keeps the GIL through its kernels
# (letting it go costs a thread alone ~0.4 µs a query, ~3 % at top 10 on scifact); the first query of
# another thread finds another mark here, and the kernels let the GIL go again.
LAST = [0, 0]
SIDE_BY_SIDE = 64
_MARKS = itertools.count(1)


def mark() -> int:
    """A new thread's mark in the turn (each searching thread takes one, once)."""
    return next(_MARKS)


def _cell(context, builder, aryty, ary, idx):
    arr = context.make_array(aryty)(context, builder, ary)
    return cgutils.get_item_pointer(context, builder, aryty, arr, [idx], wraparound=False)


@intrinsic
def _cas(typingctx, arr, idx, expected, new):
    """arr[idx] := new if it holds `expected`, atomically (sequentially consistent); returns what it held."""
    sig = types.int64(arr, idx, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        ptr = _cell(context, builder, signature.args[0], args[0], args[1])
        return builder.extract_value(builder.cmpxchg(ptr, args[2], args[3], "seq_cst", "seq_cst"), 0)

    return sig, codegen


@intrinsic
def _load(typingctx, arr, idx):
    """arr[idx], read atomically (acquire): a spinning loop reads memory every round."""
    sig = types.int64(arr, idx)

    def codegen(context, builder, signature, args):
        ptr = _cell(context, builder, signature.args[0], args[0], args[1])
        return builder.load_atomic(ptr, "acquire", 8)

    return sig, codegen


_X86 = platform.machine().lower() in ("x86_64", "amd64")


@intrinsic
def _pause(typingctx):
    """A spin-wait hint to the processor (x86's `pause`; nothing elsewhere)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        if _X86:
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                "llvm.x86.sse2.pause")
            builder.call(fn, [])
        return context.get_dummy_value()

    return sig, codegen


@nb.njit(inline="always")
def give_up(turn, me):
    """At a kernel's start (the GIL let go): the turn is nobody's, if it was this thread's."""
    _cas(turn, 0, me, 0)


@nb.njit(inline="always")
def wait_for(turn, me):
    """At a kernel's end (before taking the GIL): wait, spinning, until the turn is nobody's (or this
    thread's), then hold it; after SPIN rounds, take it over."""
    for _ in range(SPIN):
        held = _load(turn, 0)
        if held == 0 or held == me:
            if _cas(turn, 0, held, me) == held:
                return
        _pause()
    turn[0] = me
