package engine

import (
	"errors"
	"slices"
	"testing"
)

func TestParseRecord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		give        string
		wantPlies   []string
		wantHeaders []Header
	}{
		{name: "bare plies", give: "e2 e8 e3h", wantPlies: []string{"e2", "e8", "e3h"}},
		{name: "move numbers", give: "1. e2 e8 2. e3h e7", wantPlies: []string{"e2", "e8", "e3h", "e7"}},
		{name: "glued numbers", give: "1.e2 e8 2.e3h 2...e7", wantPlies: []string{"e2", "e8", "e3h", "e7"}},
		{
			name:        "headers and lines",
			give:        "# game: banqi\n# layout: KAAB\n# just a comment\nc2 c2-c3\n\nd4xd3\n",
			wantPlies:   []string{"c2", "c2-c3", "d4xd3"},
			wantHeaders: []Header{{"game", "banqi"}, {"layout", "KAAB"}},
		},
		{name: "empty", give: "", wantPlies: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRecord(tt.give)
			if err != nil {
				t.Fatalf("ParseRecord(%q): %v", tt.give, err)
			}
			if !slices.Equal(got.Plies, tt.wantPlies) {
				t.Errorf("plies = %q, want %q", got.Plies, tt.wantPlies)
			}
			if !slices.Equal(got.Headers, tt.wantHeaders) {
				t.Errorf("headers = %q, want %q", got.Headers, tt.wantHeaders)
			}
		})
	}
}

func TestParseRecordBadMoveNumber(t *testing.T) {
	t.Parallel()
	_, err := ParseRecord("1. e2 e8\n2.. e3")
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("ParseRecord: got %v, want a *SyntaxError", err)
	}
	if se.Offset != 9 {
		t.Errorf("offset = %d, want 9", se.Offset)
	}
}

func TestRecordHeader(t *testing.T) {
	t.Parallel()
	rec, err := ParseRecord("# layout: abc\n# layout: second\n")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := rec.Header("layout"); !ok || v != "abc" {
		t.Errorf("Header(layout) = %q, %v; want abc, true", v, ok)
	}
	if _, ok := rec.Header("missing"); ok {
		t.Error("Header(missing) found a value")
	}
}

func TestReasonRoundTrip(t *testing.T) {
	t.Parallel()
	for r := NoReason; r <= ReasonCompleted; r++ {
		got, err := ParseReason(r.String())
		if err != nil || got != r {
			t.Errorf("ParseReason(%q) = %v, %v; want %v", r.String(), got, err, r)
		}
	}
	if _, err := ParseReason("bogus"); err == nil {
		t.Error("ParseReason(bogus) succeeded")
	}
}

func TestSeat(t *testing.T) {
	t.Parallel()
	if First.Other() != Second || Second.Other() != First || NoSeat.Other() != NoSeat {
		t.Error("Other is not an involution on the two seats")
	}
	if First.Index() != 0 || Second.Index() != 1 {
		t.Error("Index of First/Second is not 0/1")
	}
}
