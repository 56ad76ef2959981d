C     Y := Y + A X, the BLAS level-1 routine, written for this fixture.
      SUBROUTINE DAXPY(N, A, X, INCX, Y, INCY)
      INTEGER N, INCX, INCY, I
      DOUBLE PRECISION A, X(*), Y(*)
      DO 10 I = 1, N
         Y(1 + (I-1)*INCY) = Y(1 + (I-1)*INCY) + A*X(1 + (I-1)*INCX)
   10 CONTINUE
      END
