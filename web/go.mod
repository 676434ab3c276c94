module tabuleiro.dev/web

go 1.26.0
