package play

import (
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/config"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/records"
)

// tab is tabuleiro's command line with the commands these tests run.
var tab = clitest.Commands{New, records.NewHistory, records.NewStats, config.New}
