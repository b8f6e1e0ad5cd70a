package check

//go:generate go run ./internal/mkstd -o stdexport.zip
