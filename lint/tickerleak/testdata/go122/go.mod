module example.com/go122

go 1.22
