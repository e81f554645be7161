module example.com/linedir

go 1.26
