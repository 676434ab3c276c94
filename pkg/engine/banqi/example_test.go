package banqi_test

import (
	"fmt"

	"tabuleiro.dev/pkg/engine/banqi"
)

// A game publishes the commitment at its start and the seed at its end;
// anyone can then recompute the layout (B1, B6).
func ExampleLayoutFromSeed() {
	var seed [32]byte // a real game draws it from crypto/rand
	fmt.Println(banqi.SeedCommitment(seed))
	fmt.Println(banqi.LayoutFromSeed(seed))
	// Output:
	// 66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925
	// PcBBrPkKaPpNbPbCpnpcpaNRArRCnPAp
}

func ExampleView_Identities() {
	l, _ := banqi.ParseLayout("pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP")
	p, _ := l.Position().PlayMove(banqi.RevealMove(9)) // b2: the red general
	v := p.PublicView()
	for _, c := range v.Identities(0)[:2] {
		fmt.Printf("%s %d/%d\n", c.Piece.Name(), c.Count, c.Total)
	}
	// Output:
	// red advisor 2/31
	// red elephant 2/31
}
