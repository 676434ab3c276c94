module tabuleiro.dev/cmd/tabuleiro

go 1.26.0

require (
	github.com/spf13/cobra v1.10.2
	tabuleiro.dev/pkg/engine v0.0.0
	tabuleiro.dev/services/bot v0.0.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)

replace tabuleiro.dev/pkg/engine => ../../pkg/engine

replace tabuleiro.dev/services/bot => ../../services/bot
