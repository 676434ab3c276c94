module tabuleiro.dev/services/match

go 1.26
