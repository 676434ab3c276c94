package corners

import "testing"

// The variant facts a client shows follow the table of C2.
func TestVariantFacts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		variant            string
		diagonal, blocking bool
	}{
		{"classic-3x3", false, false},
		{"classic-3x4", false, false},
		{"diagonal-3x3", true, true},
		{"diagonal-3x4", true, true},
		{"triangle", false, false},
		{"square-4x4", false, false},
		{"halma-16x16", true, true},
		{"training", false, false},
	}
	for _, tt := range tests {
		pos, err := New(tt.variant, "")
		if err != nil {
			t.Fatalf("%s: %v", tt.variant, err)
		}
		p := pos.(Position)
		if p.Diagonal() != tt.diagonal || p.BlockingAllowed() != tt.blocking {
			t.Errorf("%s: diagonal %v blocking %v, want %v %v (C2)", tt.variant, p.Diagonal(), p.BlockingAllowed(), tt.diagonal, tt.blocking)
		}
	}
}
