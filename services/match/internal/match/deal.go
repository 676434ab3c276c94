package match

import (
	"crypto/rand"
	"encoding/hex"

	"tabuleiro.dev/pkg/engine/banqi"
)

// DealBanqi draws a Banqi layout from crypto/rand (B1): the layout, the
// seed in hex (published when the game ends) and the seed's commitment
// (published at the start).
func DealBanqi() (layout, seed, commitment string, err error) {
	var s [32]byte
	if _, err := rand.Read(s[:]); err != nil {
		return "", "", "", err
	}
	return banqi.LayoutFromSeed(s).String(), hex.EncodeToString(s[:]), banqi.SeedCommitment(s), nil
}
