! A Fortran MPI program (mpif.h bindings): rank r computes (r+1) units per step, then all ranks
! meet in MPI_ALLREDUCE. Open MPI's Fortran library calls PMPI_ directly, so only omprof's
! Fortran wrappers see these calls. With a second argument PATH, every rank also calls
! omprof_write_mpi_summary(PATH) through the omprof module (non-strict, CSV) inside an explicit
! region, and prints its status. Usage: mpi_fortran STEPS [PATH]
program mpi_fortran
  use omprof
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, size, step, steps, st
  character(len=256) :: arg
  double precision :: x, total
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, size, ierr)
  steps = 40
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  x = 0
  do step = 1, steps
    st = omprof_begin("step")
    call work(rank + 1, x)
    call mpi_allreduce(x, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    st = omprof_end("step")
  end do
  if (command_argument_count() > 1) then
    call get_command_argument(2, arg)
    st = omprof_write_mpi_summary(arg, .false., .true.)
    print '(a,i0,a,i0)', 'rank ', rank, ' mpi_summary_status ', st
  end if
  if (rank == 0) print '(a,i0,a)', 'ranks ', size, ' done'
  call mpi_finalize(ierr)
contains
  subroutine work(units, x)
    integer, intent(in) :: units
    double precision, intent(inout) :: x
    double precision :: t0, t1
    call cpu_time(t0)
    do
      x = x * 1.0000001d0 + 1d-9
      call cpu_time(t1)
      if (t1 - t0 > 0.004d0 * units) exit
    end do
  end subroutine work
end program mpi_fortran
