module example.com/pluginfixture

go 1.26
