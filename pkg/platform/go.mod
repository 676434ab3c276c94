module tabuleiro.dev/pkg/platform

go 1.26
