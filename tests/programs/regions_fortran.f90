! The Fortran module in use: a named region around a loop of id-based regions.
program regions_fortran
  use omprof
  implicit none
  integer :: st, i
  integer(omprof_region_id_kind) :: id
  real(8) :: x
  st = omprof_begin("fortran_outer")
  print '(a,i0)', 'begin ', st
  st = omprof_lookup("fortran_inner", id)
  x = 1.0d0
  do i = 1, 4
    st = omprof_begin_id(id)
    call work(x)
    st = omprof_end_id(id)
  end do
  st = omprof_end("fortran_outer  ")
  print '(a,i0)', 'end ', st
  st = omprof_end("fortran_outer")
  print '(a,i0)', 'mismatch ', st
  print '(a,f8.3)', 'x ', x
contains
  subroutine work(y)
    real(8), intent(inout) :: y
    integer :: k
    do k = 1, 2000000
      y = y * 1.0000001d0 + 1.0d-9
    end do
  end subroutine
end program
