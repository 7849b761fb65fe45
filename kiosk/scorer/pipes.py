"""Values between the scorer and its worker processes: pickles, each after its length, over
the child's standard input and output (the child is this same program: pickle is safe)."""

from __future__ import annotations

import pickle
import struct
from typing import IO, Any

HEAD = struct.Struct("!Q")


def packed(value: Any) -> bytes:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return HEAD.pack(len(data)) + data


def send(pipe: IO[bytes], value: Any) -> None:
    pipe.write(packed(value))
    pipe.flush()


def receive(pipe: IO[bytes]) -> Any:
    """The next value; EOFError when the pipe closed."""
    head = pipe.read(HEAD.size)
    if len(head) < HEAD.size:
        raise EOFError("the pipe closed")
    (size,) = HEAD.unpack(head)
    data = pipe.read(size)
    if len(data) < size:
        raise EOFError("the pipe closed")
    return pickle.loads(data)
