module example.org/welford

go 1.19

require github.com/google/go-cmp v0.5.9
