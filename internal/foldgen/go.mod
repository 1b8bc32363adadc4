module github.com/byheart/byheart/internal/foldgen

go 1.24

require golang.org/x/text v0.24.0
