module example.com/vetfixture

go 1.26
