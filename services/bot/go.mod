module tabuleiro.dev/services/bot

go 1.26
