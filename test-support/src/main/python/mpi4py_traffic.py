"""mpi4py_traffic.py - MPI from Python: the library is loaded at run time, by mpi4py's extension
module (Debian's python3-mpi4py, linked to Open MPI), not by the interpreter. 2 ranks; mpi4py
initialises with MPI_Init_thread. Prints "pickled P" (the length of the pickled object rank 0
sends, as mpi4py pickles it) and "mpi4py rank R: ok" when every value checks.
  rank 0 -> 1: comm.send(obj) (pickled, MPI_Send of P bytes; the receiver's comm.recv is
               MPI_Mprobe + MPI_Mrecv), then Send of 10 int32 (40 bytes), Recv on rank 1;
  rank 1 -> 0: Send of 5 float64 (40 bytes); rank 0 takes it with comm.mprobe + msg.Recv;
  both:        Allreduce (sum) of 3 float64 (24 bytes).
"""
import sys

import numpy as np
from mpi4py import MPI



def say(line):
    """One line in one write (print writes the text and its end apart, which the launcher may
    interleave with another rank's)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


comm = MPI.COMM_WORLD
rank = comm.Get_rank()
ok = comm.Get_size() == 2
obj = {"numbers": [1, 2, 3], "text": "x" * 20}
if rank == 0:
    say("pickled %d" % len(MPI.pickle.dumps(obj)))
    comm.send(obj, dest=1, tag=1)
    comm.Send(np.arange(10, dtype=np.int32), dest=1, tag=2)
    msg = comm.mprobe(source=1, tag=3)
    doubles = np.empty(5, dtype=np.float64)
    msg.Recv(doubles)
    ok = ok and list(doubles) == [0.5 * i for i in range(5)]
else:
    ok = ok and comm.recv(source=0, tag=1) == obj
    ints = np.empty(10, dtype=np.int32)
    comm.Recv(ints, source=0, tag=2)
    ok = ok and int(ints.sum()) == 45
    comm.Send(np.array([0.5 * i for i in range(5)], dtype=np.float64), dest=0, tag=3)
total = np.empty(3, dtype=np.float64)
comm.Allreduce(np.full(3, rank + 1.0), total, op=MPI.SUM)
ok = ok and list(total) == [3.0, 3.0, 3.0]
say("mpi4py rank %d: %s" % (rank, "ok" if ok else "WRONG"))
sys.exit(0 if ok else 1)
