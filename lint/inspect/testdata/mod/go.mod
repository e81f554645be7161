module example.com/insp

go 1.26
