package load

import (
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
)

// load's help, for operators, is in their language, as the players'
// commands' is.
func TestLoadHelpTranslated(t *testing.T) {
	t.Parallel()
	clitest.Commands{New}.HelpTranslated(t)
}
