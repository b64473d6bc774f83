! procstate.F90 - what a Fortran program sees of its floating-point environment around MPI, through
! the IEEE intrinsic modules (procstate.c's fp items, the Fortran way). 2 or more ranks, an even
! count. At each checkpoint (init, p2p, collective, nonblocking, pcontrol, finalize, finalized: as
! procstate.c) it records each exception flag (ieee_get_flag), the rounding mode
! (ieee_get_rounding_mode) and each flag's halting mode (ieee_get_halting_mode). The flags are
! never cleared: each checkpoint shows what was raised since the program began, and the program
! ends with STOP, where gfortran's runtime prints "Note: The following floating-point exceptions
! are signalling: ..." on stderr when one is still set. Each rank writes its lines
! ("<checkpoint> <item> <value>") into procstate_f-<rank>.txt after MPI_Finalize and prints
! "procstate_f rank R lines N".
program procstate_f
  use, intrinsic :: ieee_arithmetic
  use, intrinsic :: ieee_exceptions
  use mpi
  implicit none
  integer, parameter :: maxlines = 256
  character(len=80) :: lines(maxlines)
  integer :: nlines, ierr, rank, nranks, partner, unit
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), reqs(2)
  double precision :: x, y, total
  ! read in the main program: a procedure using the IEEE modules starts with its flags quiet
  logical :: raised(5)
  character(len=64) :: filename

  nlines = 0
  call MPI_INIT(ierr)
  call ieee_get_flag(ieee_all, raised)
  call record('init', raised)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  if (nranks < 2 .or. mod(nranks, 2) /= 0) then
    write (0, '(a)') 'procstate_f: needs an even number of ranks, 2 or more'
    call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
  end if
  partner = ieor(rank, 1)
  x = 1.0d0 / 3.0d0
  y = 0.0d0

  if (mod(rank, 2) == 0) then
    call MPI_SEND(x, 1, MPI_DOUBLE_PRECISION, partner, 1, MPI_COMM_WORLD, ierr)
    call MPI_RECV(y, 1, MPI_DOUBLE_PRECISION, partner, 2, MPI_COMM_WORLD, status, ierr)
  else
    call MPI_RECV(y, 1, MPI_DOUBLE_PRECISION, partner, 1, MPI_COMM_WORLD, status, ierr)
    call MPI_SEND(x, 1, MPI_DOUBLE_PRECISION, partner, 2, MPI_COMM_WORLD, ierr)
  end if
  call ieee_get_flag(ieee_all, raised)
  call record('p2p', raised)

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_BCAST(x, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call MPI_ALLREDUCE(x, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call ieee_get_flag(ieee_all, raised)
  call record('collective', raised)

  call MPI_IRECV(y, 1, MPI_DOUBLE_PRECISION, partner, 4, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(x, 1, MPI_DOUBLE_PRECISION, partner, 4, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITALL(2, reqs, statuses, ierr)
  call ieee_get_flag(ieee_all, raised)
  call record('nonblocking', raised)

  call MPI_PCONTROL(0)
  call MPI_PCONTROL(1)
  call ieee_get_flag(ieee_all, raised)
  call record('pcontrol', raised)

  call ieee_get_flag(ieee_all, raised)
  call record('finalize', raised)
  call MPI_FINALIZE(ierr)
  call ieee_get_flag(ieee_all, raised)
  call record('finalized', raised)

  write (filename, '(a,i0,a)') 'procstate_f-', rank, '.txt'
  open (newunit=unit, file=trim(filename), status='replace', action='write')
  block
    integer :: i
    do i = 1, nlines
      write (unit, '(a)') trim(lines(i))
    end do
  end block
  close (unit)
  write (*, '(a,i0,a,i0)') 'procstate_f rank ', rank, ' lines ', nlines
  flush (6)
  stop

contains

  ! The exception flags, the rounding mode and the halting modes, as lines of this checkpoint;
  ! raised: the flags of ieee_all (overflow, divide by zero, invalid, underflow, inexact), as read
  ! by the caller.
  subroutine record(checkpoint, raised)
    character(len=*), intent(in) :: checkpoint
    logical, intent(in) :: raised(5)
    type(ieee_flag_type), parameter :: flags(5) = ieee_all
    character(len=14), parameter :: names(5) = [character(len=14) :: 'overflow', 'divide_by_zero', &
                                                 'invalid', 'underflow', 'inexact']
    type(ieee_round_type) :: mode
    logical :: on
    integer :: i
    character(len=8) :: rounding

    do i = 1, 5
      call add(checkpoint // ' flag ' // trim(names(i)) // ' ' // merge('T', 'F', raised(i)))
    end do
    call ieee_get_rounding_mode(mode)
    if (mode == ieee_nearest) then
      rounding = 'nearest'
    else if (mode == ieee_to_zero) then
      rounding = 'to_zero'
    else if (mode == ieee_up) then
      rounding = 'up'
    else if (mode == ieee_down) then
      rounding = 'down'
    else
      rounding = 'other'
    end if
    call add(checkpoint // ' rounding ' // trim(rounding))
    do i = 1, 5
      call ieee_get_halting_mode(flags(i), on)
      call add(checkpoint // ' halting ' // trim(names(i)) // ' ' // merge('T', 'F', on))
    end do
  end subroutine record

  subroutine add(line)
    character(len=*), intent(in) :: line
    if (nlines < maxlines) then
      nlines = nlines + 1
      lines(nlines) = line
    end if
  end subroutine add

end program procstate_f
