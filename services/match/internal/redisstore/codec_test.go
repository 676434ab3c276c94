package redisstore

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"tabuleiro.dev/services/match/internal/match"
)

// fill sets every field reachable from v to a value that is not zero and
// differs from field to field (n counts them), so that a field the codec
// forgets — one added to State later, say — fails the round trip.
func fill(v reflect.Value, n *int64) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + strings.Repeat("x", int(*n%7)) + string(rune('a'+*n%26)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := *n % 100
		if *n%3 == 0 {
			x = -x - 1 // negative values too (a clock of -1)
		}
		if v.Kind() == reflect.Int64 && *n%4 == 0 {
			x *= 1 << 40 // and large ones (unix ms)
		}
		v.SetInt(x + 1)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), n)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), n)
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 3, 3)
		for i := range 3 {
			fill(s.Index(i), n)
		}
		v.Set(s)
	}
}

func TestBinaryCodecRoundTrips(t *testing.T) {
	var n int64
	var st match.State
	fill(reflect.ValueOf(&st).Elem(), &n)
	st.Version, st.Plies = 0, nil                              // stored apart
	st.Seats[0].DisplayName = strings.Repeat("long name ", 20) // a message over 127 bytes
	var got match.State
	if err := decodeState(encodeState(&st), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, st) {
		t.Errorf("state round trip:\n got %+v\nwant %+v", got, st)
	}

	var p match.PlyRecord
	fill(reflect.ValueOf(&p).Elem(), &n)
	var gotP match.PlyRecord
	if err := decodePly(encodePly(&p), &gotP); err != nil || gotP != p {
		t.Errorf("ply round trip: %+v, %v; want %+v", gotP, err, p)
	}

	var e match.Event
	fill(reflect.ValueOf(&e).Elem(), &n)
	var gotE match.Event
	if err := decodeEvent(encodeEvent(&e), e.MatchID, &gotE); err != nil || !reflect.DeepEqual(gotE, e) {
		t.Errorf("event round trip:\n got %+v, %v\nwant %+v", gotE, err, e)
	}

	// A ply event's ply repeats its number, time and seq, left out; one
	// that differs is kept, zero included.
	for _, ply := range []match.PlyRecord{
		{Number: 5, Seat: 1, Notation: "e2", ClockMS: -1, At: 1 << 41, Seq: 9},
		{Number: 0, Seat: 2, Notation: "e8", At: 0, Seq: 0},
	} {
		ev := match.Event{MatchID: "m", Seq: 9, At: 1 << 41, Kind: match.EventPly, Plies: 5, Ply: &ply,
			Clocks: &match.Clocks{Remaining: [2]int64{1, 2}, Running: 2, AsOf: 1 << 41}}
		var got match.Event
		if err := decodeEvent(encodeEvent(&ev), "m", &got); err != nil || !reflect.DeepEqual(got, ev) {
			t.Errorf("ply event round trip:\n got %+v %+v, %v\nwant %+v %+v", got, got.Ply, err, ev, ev.Ply)
		}
	}

	// A published commit carries the event, the state and its plies.
	c := encodeCommit(encodeEvent(&e), 7, 2, encodeState(&st), [][]byte{encodePly(&p), encodePly(&p)})
	v, k, ev, rest, err := parseCommit(c)
	if err != nil || v != 7 || k != 2 {
		t.Fatalf("parse commit: %d %d %v", v, k, err)
	}
	if err := decodeEvent(ev, e.MatchID, &gotE); err != nil || !reflect.DeepEqual(gotE, e) {
		t.Errorf("published event: %+v, %v", gotE, err)
	}
	pst, plies, err := decodeCommitBinary(7, rest)
	if err != nil || len(plies) != 2 || plies[1] != p || pst.Version != 7 {
		t.Fatalf("published commit: %+v %v %v", pst, plies, err)
	}
	pst.Version = 0
	if !reflect.DeepEqual(*pst, st) {
		t.Errorf("published state:\n got %+v\nwant %+v", *pst, st)
	}
}

// TestJSONValuesStillRead: a match stored before the binary encoding
// (JSON) is read as it was.
func TestJSONValuesStillRead(t *testing.T) {
	var n int64
	var st match.State
	fill(reflect.ValueOf(&st).Elem(), &n)
	st.Version, st.Plies = 0, nil
	b, _ := json.Marshal(&st)
	var got match.State
	if err := decodeState(b, &got); err != nil || !reflect.DeepEqual(got, st) {
		t.Errorf("JSON state: %v\n got %+v\nwant %+v", err, got, st)
	}
	var e match.Event
	fill(reflect.ValueOf(&e).Elem(), &n)
	b, _ = json.Marshal(&e)
	var gotE match.Event
	if err := decodeEvent(b, "other", &gotE); err != nil || !reflect.DeepEqual(gotE, e) {
		t.Errorf("JSON event: %v\n got %+v\nwant %+v", err, gotE, e)
	}
	var p match.PlyRecord
	fill(reflect.ValueOf(&p).Elem(), &n)
	b, _ = json.Marshal(&p)
	var gotP match.PlyRecord
	if err := decodePly(b, &gotP); err != nil || gotP != p {
		t.Errorf("JSON ply: %+v, %v; want %+v", gotP, err, p)
	}
	if len(encodeState(&st)) >= len(b)*2 {
		t.Logf("binary state %d bytes", len(encodeState(&st)))
	}
}

func TestMalformedBinaryRefused(t *testing.T) {
	var st match.State
	for _, b := range [][]byte{{tagValue, 0x0a, 0x05, 'a'}, {tagValue, 0xff}} {
		if err := decodeState(b, &st); err == nil {
			t.Errorf("decodeState(%x) = nil, want an error", b)
		}
	}
	if _, _, _, _, err := parseCommit([]byte{tagCommit, 0x80}); err == nil {
		t.Error("a truncated commit parsed")
	}
}
