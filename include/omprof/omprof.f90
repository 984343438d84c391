! omprof explicit regions: a Fortran module over the C API (iso_c_binding).
!
!   use omprof
!   integer :: st
!   integer(omprof_region_id_kind) :: id
!   st = omprof_begin("solve")
!   st = omprof_lookup("kernel", id)
!   st = omprof_begin_id(id); ...; st = omprof_end_id(id)
!   st = omprof_end("solve")
!
! Status codes and mismatch modes are those of omprof/omprof.h.
module omprof
  use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_char, c_null_char
  implicit none
  private

  integer, parameter, public :: omprof_region_id_kind = c_int32_t
  integer(c_int), parameter, public :: OMPROF_SUCCESS = 0, OMPROF_ERR_NOT_INIT = 1, &
    OMPROF_ERR_NOT_IMPLEMENTED = 2, OMPROF_ERR_UNKNOWN = 3, OMPROF_ERR_ACTIVE = 4, &
    OMPROF_ERR_MISMATCH = 5, OMPROF_ERR_MPI_INCON = 6, OMPROF_ERR_IO = 7, &
    OMPROF_ERR_INVALID_NAME = 8, OMPROF_ERR_REENTERED = 9
  integer(c_int), parameter, public :: OMPROF_MISMATCH_STRICT = 0, OMPROF_MISMATCH_WARN = 1, &
    OMPROF_MISMATCH_REPAIR = 2

  public :: omprof_begin, omprof_end, omprof_lookup, omprof_begin_id, omprof_end_id, &
    omprof_reset, omprof_set_mismatch_mode, omprof_write_summary, omprof_write_summary_csv, &
    omprof_write_mpi_summary

  interface
    integer(c_int) function c_begin(name) bind(C, name="omprof_region_begin")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    integer(c_int) function c_end(name) bind(C, name="omprof_region_end")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    integer(c_int) function c_lookup(name, id) bind(C, name="omprof_region_lookup")
      import :: c_int, c_char, c_int32_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int32_t), intent(out) :: id
    end function
    integer(c_int) function c_begin_id(id) bind(C, name="omprof_region_begin_id")
      import :: c_int, c_int32_t
      integer(c_int32_t), value :: id
    end function
    integer(c_int) function c_end_id(id) bind(C, name="omprof_region_end_id")
      import :: c_int, c_int32_t
      integer(c_int32_t), value :: id
    end function
    integer(c_int) function c_reset() bind(C, name="omprof_region_reset")
      import :: c_int
    end function
    integer(c_int) function c_set_mode(mode) bind(C, name="omprof_set_mismatch_mode")
      import :: c_int
      integer(c_int), value :: mode
    end function
    integer(c_int) function c_write(path) bind(C, name="omprof_write_summary")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: path
    end function
    integer(c_int) function c_write_csv(path) bind(C, name="omprof_write_summary_csv")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: path
    end function
    integer(c_int) function c_write_mpi(path, strict, csv) bind(C, name="omprof_write_mpi_summary")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: path
      integer(c_int), value :: strict, csv
    end function
  end interface

contains

  ! Fortran strings are blank-padded: the C side ignores trailing blanks, as fTimer does.
  integer function omprof_begin(name)
    character(len=*), intent(in) :: name
    omprof_begin = c_begin(name // c_null_char)
  end function

  integer function omprof_end(name)
    character(len=*), intent(in) :: name
    omprof_end = c_end(name // c_null_char)
  end function

  integer function omprof_lookup(name, id)
    character(len=*), intent(in) :: name
    integer(omprof_region_id_kind), intent(out) :: id
    omprof_lookup = c_lookup(name // c_null_char, id)
  end function

  integer function omprof_begin_id(id)
    integer(omprof_region_id_kind), intent(in) :: id
    omprof_begin_id = c_begin_id(id)
  end function

  integer function omprof_end_id(id)
    integer(omprof_region_id_kind), intent(in) :: id
    omprof_end_id = c_end_id(id)
  end function

  integer function omprof_reset()
    omprof_reset = c_reset()
  end function

  integer function omprof_set_mismatch_mode(mode)
    integer, intent(in) :: mode
    omprof_set_mismatch_mode = c_set_mode(int(mode, c_int))
  end function

  integer function omprof_write_summary(path)
    character(len=*), intent(in) :: path
    omprof_write_summary = c_write(trim(path) // c_null_char)
  end function

  integer function omprof_write_summary_csv(path)
    character(len=*), intent(in) :: path
    omprof_write_summary_csv = c_write_csv(trim(path) // c_null_char)
  end function

  ! Collective over MPI_COMM_WORLD (every rank calls it): the regions reduced over the ranks,
  ! written by rank 0 to `path` ("-": standard output). With `strict`, ranks whose region trees
  ! differ make every rank return OMPROF_ERR_MPI_INCON and nothing is written.
  integer function omprof_write_mpi_summary(path, strict, csv)
    character(len=*), intent(in) :: path
    logical, intent(in) :: strict, csv
    omprof_write_mpi_summary = c_write_mpi(trim(path) // c_null_char, &
      merge(1_c_int, 0_c_int, strict), merge(1_c_int, 0_c_int, csv))
  end function

end module omprof
