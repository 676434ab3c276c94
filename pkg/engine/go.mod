module tabuleiro.dev/pkg/engine

go 1.26
