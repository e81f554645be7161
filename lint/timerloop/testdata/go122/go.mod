module example.com/timers

go 1.22
