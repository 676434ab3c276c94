module tabuleiro.dev/pkg/gen

go 1.26
