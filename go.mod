module github.com/byheart/byheart

go 1.24
