package records

import (
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/play"
)

// tab is tabuleiro's command line with the commands these tests run.
var tab = clitest.Commands{play.New, NewHistory, NewStats, NewWatch, NewReplay}
