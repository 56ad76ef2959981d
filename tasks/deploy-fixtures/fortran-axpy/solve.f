C     A "paper" in Fortran 77: Y := Y + 2 X over N points, then one more
C     AXPY on scalars, the way code written for older compilers passes a
C     scalar where the routine declares an array. Writes results.json.
      PROGRAM SOLVE
      INTEGER N, I
      DOUBLE PRECISION X(100000), Y(100000), S, T, TOTAL
      CHARACTER*32 ARG
      CALL GETARG(1, ARG)
      READ (ARG, *) N
      DO 10 I = 1, N
         X(I) = DBLE(I)
         Y(I) = 1.0D0
   10 CONTINUE
      CALL DAXPY(N, 2.0D0, X, 1, Y, 1)
      S = 1.5D0
      T = 0.5D0
      CALL DAXPY(1, 3.0D0, S, 1, T, 1)
      TOTAL = 0.0D0
      DO 20 I = 1, N
         TOTAL = TOTAL + Y(I)
   20 CONTINUE
      TOTAL = TOTAL + T
      OPEN (UNIT=7, FILE='results.json', STATUS='REPLACE')
      WRITE (7, '(A,I0,A,F0.1,A)') '{"n": ', N, ', "total": ', TOTAL,
     &   '}'
      CLOSE (7)
      WRITE (*, '(A,I0,A,F0.1)') 'n=', N, ' total=', TOTAL
      END
