module example.com/severity

go 1.24
