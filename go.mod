module kafkasim

go 1.26
