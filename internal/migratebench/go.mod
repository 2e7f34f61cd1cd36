module github.com/cqlsize/cqlsize/internal/migratebench

go 1.25.11

require (
	github.com/cqlsize/cqlsize v0.0.0
	github.com/gocql/gocql v1.7.0
	github.com/golang-migrate/migrate/v4 v4.20.1
)

require (
	github.com/golang/snappy v0.0.4 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)

replace github.com/cqlsize/cqlsize => ../..
