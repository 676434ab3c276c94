package games

import (
	"errors"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

// setups gives a legal setup for the games that need one.
var setups = map[engine.Game]string{
	engine.Banqi: "pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP", // real game banqi-001
}

func TestEveryVariantStartsAndRoundTrips(t *testing.T) {
	t.Parallel()
	for _, g := range List() {
		vs, err := Variants(g)
		if err != nil || len(vs) == 0 {
			t.Fatalf("Variants(%s) = %v, %v", g, vs, err)
		}
		for _, v := range vs {
			if v.Game != g {
				t.Errorf("%s/%s: Variant.Game = %q", g, v.ID, v.Game)
			}
			pos, err := New(g, v.ID, setups[g])
			if err != nil {
				t.Errorf("New(%s, %s): %v", g, v.ID, err)
				continue
			}
			if pos.Variant() != v {
				t.Errorf("New(%s, %s).Variant() = %+v, want %+v", g, v.ID, pos.Variant(), v)
			}
			if pos.ToMove() != engine.First || pos.Plies() != 0 || pos.Outcome().Over() {
				t.Errorf("%s/%s: start has to move %v, %d plies, outcome %v", g, v.ID, pos.ToMove(), pos.Plies(), pos.Outcome())
			}
			if len(pos.Legal()) == 0 {
				t.Errorf("%s/%s: no legal ply at the start", g, v.ID)
			}
			back, err := Decode(g, pos.Encode())
			if err != nil || back.Encode() != pos.Encode() {
				t.Errorf("%s/%s: Decode(Encode) = %v, %v", g, v.ID, back, err)
			}
			view := pos.View(engine.NoSeat)
			vback, err := DecodeView(g, view.Encode())
			if err != nil || vback.Encode() != view.Encode() {
				t.Errorf("%s/%s: DecodeView(Encode) = %v, %v", g, v.ID, vback, err)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	def, err := Lookup(engine.Quoridor, "")
	if err != nil || def.ID != "standard" {
		t.Errorf("Lookup(quoridor, \"\") = %+v, %v; want the standard variant", def, err)
	}
	for _, tt := range []struct {
		game    engine.Game
		variant string
	}{{"chess", ""}, {engine.Quoridor, "barreira"}} {
		if _, err := Lookup(tt.game, tt.variant); !errors.Is(err, engine.ErrUnknownVariant) {
			t.Errorf("Lookup(%s, %q) = %v, want ErrUnknownVariant", tt.game, tt.variant, err)
		}
		if _, err := New(tt.game, tt.variant, ""); !errors.Is(err, engine.ErrUnknownVariant) {
			t.Errorf("New(%s, %q) = %v, want ErrUnknownVariant", tt.game, tt.variant, err)
		}
	}
	if _, err := New(engine.Banqi, "", "KKK"); !errors.Is(err, engine.ErrBadSetup) {
		t.Errorf("New(banqi) with a bad layout = %v, want ErrBadSetup", err)
	}
}
