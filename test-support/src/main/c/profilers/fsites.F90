! fsites: sites.c in Fortran, so the profile's call sites are the program's own lines, not the MPI
! library's Fortran layer. Built twice (test-support/Makefile), with -g: fsites through `use mpi`,
! fsites_f08 through `use mpi_f08` (-DF08; Open MPI's mpi_f08 bindings call its mpif.h layer, so
! two of the library's frames lie between the program and the MPI call).
!   fsites | fsites_f08
! Every rank calls mpi_comm_rank 10 times from the line marked SITE-A, 20 times from SITE-B, and
! 30 times through the subroutine helper, whose call of mpi_comm_rank is on the line marked SITE-C;
! then mpi_barrier once (SITE-D), and prints "NAME rank R: ok" (or FAILED), NAME the program's.
! MPI calls besides: mpi_init, mpi_comm_rank, mpi_comm_size, mpi_finalize.
#ifdef F08
#define MPI_MODULE mpi_f08
#define NAME 'fsites_f08'
#define IERR
#define IERR0
#else
#define MPI_MODULE mpi
#define NAME 'fsites'
#define IERR , ierr
#define IERR0 ierr
#endif
module fsites_helper
    implicit none
contains
    subroutine helper(rank, bad)
        use MPI_MODULE
        integer, intent(in) :: rank
        integer, intent(inout) :: bad
        integer :: r, ierr
        r = -1
        call mpi_comm_rank(MPI_COMM_WORLD, r IERR) ! SITE-C
        if (r /= rank) bad = bad + 1
        ierr = 0
    end subroutine helper
end module fsites_helper

program fsites
    use MPI_MODULE
    use fsites_helper
    implicit none
    integer :: ierr, rank, nranks, r, i, bad

    bad = 0
    ierr = 0
    call mpi_init(IERR0)
    call mpi_comm_rank(MPI_COMM_WORLD, rank IERR)
    call mpi_comm_size(MPI_COMM_WORLD, nranks IERR)
    do i = 1, 10
        r = -1
        call mpi_comm_rank(MPI_COMM_WORLD, r IERR) ! SITE-A
        if (r /= rank) bad = bad + 1
    end do
    do i = 1, 20
        r = -1
        call mpi_comm_rank(MPI_COMM_WORLD, r IERR) ! SITE-B
        if (r /= rank) bad = bad + 1
    end do
    do i = 1, 30
        call helper(rank, bad)
    end do
    call mpi_barrier(MPI_COMM_WORLD IERR) ! SITE-D
    if (bad == 0) then
        write (*, '(a,a,i0,a)') NAME, ' rank ', rank, ': ok'
    else
        write (*, '(a,a,i0,a)') NAME, ' rank ', rank, ': FAILED'
    end if
    call mpi_finalize(IERR0)
end program fsites
