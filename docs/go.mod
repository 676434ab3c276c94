module tabuleiro.dev/docs

go 1.26.0
