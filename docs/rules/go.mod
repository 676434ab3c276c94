module tabuleiro.dev/docs/rules

go 1.26.0
