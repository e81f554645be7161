module variants

go 1.22
