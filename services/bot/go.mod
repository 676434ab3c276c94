module tabuleiro.dev/services/bot

go 1.26

require tabuleiro.dev/pkg/engine v0.0.0

replace tabuleiro.dev/pkg/engine => ../../pkg/engine
