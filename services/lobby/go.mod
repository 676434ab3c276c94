module tabuleiro.dev/services/lobby

go 1.26
