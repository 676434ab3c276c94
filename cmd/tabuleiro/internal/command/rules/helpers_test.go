package rules

import (
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
)

// tab is tabuleiro's command line with the commands these tests run.
var tab = clitest.Commands{New}
