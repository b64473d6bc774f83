! fring: the ring of ring.c in Fortran (use mpi, mpi_send/mpi_recv of double precision).
!   fring [iters=10] [doubles=100]
! MPI calls per rank: mpi_init, mpi_comm_rank, mpi_comm_size, iters x (mpi_send + mpi_recv),
! mpi_finalize. Rank 0 prints "fring ranks=R iters=N doubles=M ok" (or FAILED).
program fring
    use mpi
    implicit none
    integer :: ierr, rank, nranks, iters, m, it, j, left, right, bad
    integer :: status(MPI_STATUS_SIZE)
    character(len=32) :: arg
    double precision, allocatable :: buf(:)

    call mpi_init(ierr)
    call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
    call mpi_comm_size(MPI_COMM_WORLD, nranks, ierr)
    iters = 10
    m = 100
    if (command_argument_count() >= 1) then
        call get_command_argument(1, arg)
        read (arg, *) iters
    end if
    if (command_argument_count() >= 2) then
        call get_command_argument(2, arg)
        read (arg, *) m
    end if
    allocate (buf(max(m, 1)))
    right = mod(rank + 1, nranks)
    left = mod(rank - 1 + nranks, nranks)
    bad = 0
    do it = 0, iters - 1
        if (rank == 0) then
            do j = 1, m
                buf(j) = it + j
            end do
            call mpi_send(buf, m, MPI_DOUBLE_PRECISION, right, it, MPI_COMM_WORLD, ierr)
            call mpi_recv(buf, m, MPI_DOUBLE_PRECISION, left, it, MPI_COMM_WORLD, status, ierr)
            do j = 1, m
                if (abs(buf(j) - (it + j + nranks - 1)) > 0.5d0) bad = bad + 1
            end do
        else
            call mpi_recv(buf, m, MPI_DOUBLE_PRECISION, left, it, MPI_COMM_WORLD, status, ierr)
            buf(1:m) = buf(1:m) + 1
            call mpi_send(buf, m, MPI_DOUBLE_PRECISION, right, it, MPI_COMM_WORLD, ierr)
        end if
    end do
    if (rank == 0) then
        if (bad == 0) then
            write (*, '(a,i0,a,i0,a,i0,a)') 'fring ranks=', nranks, ' iters=', iters, ' doubles=', m, ' ok'
        else
            write (*, '(a,i0,a,i0,a,i0,a)') 'fring ranks=', nranks, ' iters=', iters, ' doubles=', m, ' FAILED'
        end if
        flush (6)
    end if
    deallocate (buf)
    call mpi_finalize(ierr)
end program fring
