! pingpong.F90 - pingpong.c in Fortran: the same MPI calls in the same order, the same output
! lines. Built twice: with include 'mpif.h' (pingpong_mpif) and, with -DUSE_MPI_MODULE, with
! use mpi (pingpong_usempi). Usage: pingpong_mpif|pingpong_usempi [K] (default 3).
program pingpong
#ifdef USE_MPI_MODULE
  use mpi
#endif
  implicit none
#ifndef USE_MPI_MODULE
  include 'mpif.h'
#endif
  integer :: ierr, rank, nranks, k, i, val, echo_sum, mine, total
  integer :: status(MPI_STATUS_SIZE)
  character(len=32) :: arg

  write (*, '(a)') 'pingpong: start'
  flush (6)
  k = 3
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) k
  end if
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  call MPI_PCONTROL(2)
  echo_sum = 0
  if (nranks >= 2) then
    do i = 1, k
      if (rank == 0) then
        val = i * 7 + 1
        call MPI_SEND(val, 1, MPI_INTEGER, 1, 17, MPI_COMM_WORLD, ierr)
        call MPI_RECV(val, 1, MPI_INTEGER, 1, 18, MPI_COMM_WORLD, status, ierr)
        echo_sum = echo_sum + val
      else if (rank == 1) then
        call MPI_RECV(val, 1, MPI_INTEGER, 0, 17, MPI_COMM_WORLD, status, ierr)
        val = val + 1000
        call MPI_SEND(val, 1, MPI_INTEGER, 0, 18, MPI_COMM_WORLD, ierr)
      end if
    end do
  end if
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  mine = rank + 1
  total = 0
  call MPI_ALLREDUCE(mine, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0,a,i0)') 'pingpong result: ranks=', nranks, ' K=', k, &
      ' echo_sum=', echo_sum, ' allreduce=', total
    flush (6)
  end if
  call MPI_FINALIZE(ierr)
end program pingpong
