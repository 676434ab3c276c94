// Command tabuleiro plays Tabuleiro's games in a terminal, checks game
// records against the rules, and runs every service in one process.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "tabuleiro: nothing here yet")
	os.Exit(2)
}
