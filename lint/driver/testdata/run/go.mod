module example.com/run

go 1.26
