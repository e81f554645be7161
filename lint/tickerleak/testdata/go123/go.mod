module example.com/go123

go 1.23
