package rooms

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// cheapArgon2 keeps the tests fast; hashes carry their parameters, so the
// code paths are the production ones.
var cheapArgon2 = Argon2{Time: 1, MemoryKiB: 64, Threads: 1}

func newStore(t *testing.T, cfg Config) (*Store, *testenv.Matches) {
	t.Helper()
	rdb, prefix := testenv.Redis(t)
	cfg.Prefix = prefix
	if cfg.Argon2 == (Argon2{}) {
		cfg.Argon2 = cheapArgon2
	}
	m := &testenv.Matches{}
	return New(rdb, testenv.Variants, m, cfg), m
}

var (
	ana = lobby.Player{ID: "p_ana", DisplayName: "Ana"}
	bo  = lobby.Player{ID: "p_bo", DisplayName: "Bo"}
	cy  = lobby.Player{ID: "p_cy", DisplayName: "Cy"}
)

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, Config{})
	tests := []struct {
		name      string
		give      Spec
		wantField string
	}{
		{"unknown variant", Spec{Game: engine.Quoridor, Variant: "nope"}, "variant"},
		{"rated unrated variant (C7)", Spec{Game: engine.Corners, Variant: "diagonal-3x4", Rated: true}, "rated"},
		{"rated banqi", Spec{Game: engine.Banqi, Variant: "standard", Rated: true}, "rated"},
		{"one-player variant", Spec{Game: engine.Corners, Variant: "training"}, "variant"},
		{"private without password", Spec{Game: engine.Quoridor, Variant: "standard", Private: true}, "password"},
		{"private short password", Spec{Game: engine.Quoridor, Variant: "standard", Private: true, Password: "abc"}, "password"},
		{"public with password", Spec{Game: engine.Quoridor, Variant: "standard", Password: "secret"}, "password"},
		{"clock out of range", Spec{Game: engine.Quoridor, Variant: "standard", Clock: lobby.TimeControl{BaseMS: 10}}, "time_control.base_ms"},
		{"public one-device room", Spec{Game: engine.Quoridor, Variant: "standard", OneDevice: true}, "one_device"},
		{"rated one-device room", Spec{Game: engine.Quoridor, Variant: "standard", OneDevice: true, Rated: true, Private: true, Password: "secret"}, "one_device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Create(t.Context(), ana, tt.give)
			var ie *lobby.InvalidError
			if !errors.As(err, &ie) || ie.Field != tt.wantField {
				t.Fatalf("Create = %v, want InvalidError on %s", err, tt.wantField)
			}
		})
	}
}

func TestPublicRoomJoinCreatesMatchOnce(t *testing.T) {
	t.Parallel()
	s, m := newStore(t, Config{})
	ctx := t.Context()
	r, err := s.Create(ctx, ana, Spec{Game: engine.Quoridor, Variant: "standard", Rated: true, Clock: lobby.TimeControl{BaseMS: 180000, IncrementMS: 2000}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Join(ctx, ana, Target{RoomID: r.ID}, "", "192.0.2.1"); !errors.Is(err, lobby.ErrPrecondition) {
		t.Fatalf("host joining own room: %v, want ErrPrecondition", err)
	}
	// Two people race for the one free seat: exactly one gets it.
	var wg sync.WaitGroup
	results := make([]error, 2)
	rooms := make([]Room, 2)
	for i, p := range []lobby.Player{bo, cy} {
		wg.Go(func() { rooms[i], results[i] = s.Join(ctx, p, Target{RoomID: r.ID}, "", "192.0.2.1") })
	}
	wg.Wait()
	won := -1
	for i, err := range results {
		switch {
		case err == nil:
			won = i
		case !errors.Is(err, lobby.ErrPrecondition):
			t.Fatalf("loser's error %v, want ErrPrecondition", err)
		}
	}
	if won < 0 || results[1-won] == nil {
		t.Fatalf("join results %v, want exactly one success", results)
	}
	got := rooms[won]
	if got.Status != Started || got.MatchID == "" {
		t.Fatalf("joined room %+v, want started with a match", got)
	}
	if m.Calls() != 1 {
		t.Errorf("CreateMatch called %d times, want 1", m.Calls())
	}
	spec := m.Specs()[got.MatchID]
	if !spec.Rated || spec.RequestID != "room-"+r.ID {
		t.Errorf("match spec %+v", spec)
	}
	seats := map[engine.Seat]string{got.SeatOf(ana.ID): ana.ID, got.SeatOf(got.Guest.ID): got.Guest.ID}
	if seats[engine.First] != spec.First.PlayerID || seats[engine.Second] != spec.Second.PlayerID {
		t.Errorf("seats %v disagree with the match's %s/%s", seats, spec.First.PlayerID, spec.Second.PlayerID)
	}
	// Joining again is idempotent for the member.
	again, err := s.Join(ctx, got.Guest, Target{RoomID: r.ID}, "", "192.0.2.1")
	if err != nil || again.MatchID != got.MatchID {
		t.Errorf("second join = %+v, %v; want the same match", again, err)
	}
}

// A room for two people at one device makes its match so (the match then
// waits for a first ply as long as an untimed bot match does); other
// rooms' matches are not.
func TestOneDeviceRoomMatch(t *testing.T) {
	t.Parallel()
	s, m := newStore(t, Config{})
	ctx := t.Context()
	for _, one := range []bool{true, false} {
		r, err := s.Create(ctx, ana, Spec{Game: engine.Corners, Variant: "classic-3x3", Private: true, Password: "secret", OneDevice: one})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Join(ctx, bo, Target{RoomID: r.ID, OneDevice: one}, "secret", "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		if spec := m.Specs()[got.MatchID]; spec.OneDevice != one || !spec.Private {
			t.Errorf("room with OneDevice %v: match spec %+v", one, spec)
		}
		if got.OneDevice != one {
			t.Errorf("room with OneDevice %v reads back as %v", one, got.OneDevice)
		}
	}
}

// A room for two players at one device is joined only by a second identity
// that knows it (the host's own, JoinRoomRequest.one_device): anyone else
// who has its code and password is refused with a reason they can act on,
// and the room stays open for the host's second identity. The flag changes
// nothing for a normal room.
func TestOneDeviceRoomJoinSaysSo(t *testing.T) {
	t.Parallel()
	s, m := newStore(t, Config{})
	ctx := t.Context()
	r, err := s.Create(ctx, ana, Spec{Game: engine.Corners, Variant: "classic-3x3", Private: true, Password: "secret", OneDevice: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Join(ctx, bo, Target{InviteCode: r.InviteCode}, "secret", "192.0.2.1")
	if !errors.Is(err, lobby.ErrPrecondition) || !strings.Contains(err.Error(), "this room is for two players at one device; ask its host for a normal room") {
		t.Fatalf("a join without one_device: %v, want ErrPrecondition with the reason", err)
	}
	if got, err := s.Get(ctx, r.ID); err != nil || got.Status != Open || got.Guest.ID != "" {
		t.Fatalf("after the refused join: %+v, %v; want the room open, nobody seated", got, err)
	}
	// The refusal cost no password attempt: the host's second identity,
	// from the same address, gets in at once.
	got, err := s.Join(ctx, cy, Target{InviteCode: r.InviteCode, OneDevice: true}, "secret", "192.0.2.1")
	if err != nil || got.MatchID == "" || !m.Specs()[got.MatchID].OneDevice {
		t.Fatalf("the one-device join: %+v, %v", got, err)
	}
	normal, err := s.Create(ctx, ana, Spec{Game: engine.Corners, Variant: "classic-3x3", Private: true, Password: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Join(ctx, bo, Target{RoomID: normal.ID, OneDevice: true}, "secret", "192.0.2.1"); err != nil || m.Specs()[got.MatchID].OneDevice {
		t.Fatalf("one_device on a normal room: %+v, %v; want an ordinary match", got, err)
	}
}

func TestHostSeatChoice(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, Config{})
	ctx := t.Context()
	tests := []struct {
		name string
		seat engine.Seat
	}{
		{"host takes white (Q5)", engine.First},
		{"host takes black", engine.Second},
	}
	for _, tt := range tests {
		r, err := s.Create(ctx, ana, Spec{Game: engine.Corners, Variant: "diagonal-3x4", HostSeat: tt.seat})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Join(ctx, bo, Target{RoomID: r.ID}, "", "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		if got.SeatOf(ana.ID) != tt.seat || got.SeatOf(bo.ID) != tt.seat.Other() {
			t.Errorf("%s: host seat %v, guest %v", tt.name, got.SeatOf(ana.ID), got.SeatOf(bo.ID))
		}
	}
}

func TestPrivateRoomPasswordAndRateLimit(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, Config{MaxWrongPassword: 3})
	ctx := t.Context()
	r, err := s.Create(ctx, ana, Spec{Game: engine.Banqi, Variant: "standard", Private: true, Password: "open sesame"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.rdb.HGet(ctx, s.roomKey(r.ID), "pw").Result()
	if err != nil || !strings.HasPrefix(raw, "$argon2id$v=19$m=64,t=1,p=1$") || strings.Contains(raw, "sesame") {
		t.Fatalf("stored password %q, want an argon2id hash only", raw)
	}
	// Cy guesses wrong until limited; each wrong guess is PermissionDenied.
	for i := range 3 {
		if _, err := s.Join(ctx, cy, Target{RoomID: r.ID}, "guess", "192.0.2.1"); !errors.Is(err, lobby.ErrWrongPassword) {
			t.Fatalf("wrong guess %d: %v, want ErrWrongPassword", i+1, err)
		}
	}
	if _, err := s.Join(ctx, cy, Target{RoomID: r.ID}, "open sesame", "192.0.2.1"); !errors.Is(err, lobby.ErrTooManyAttempts) {
		t.Fatalf("after 3 wrong guesses even the right one: %v, want ErrTooManyAttempts", err)
	}
	// The limit is per player and room: Bo still gets in, by invite code in
	// lower case. No password at all is told as such (a link without it).
	if _, err := s.Join(ctx, bo, Target{InviteCode: r.InviteCode}, "", "192.0.2.1"); !errors.Is(err, lobby.ErrPasswordNeeded) || !errors.Is(err, lobby.ErrWrongPassword) {
		t.Fatalf("Bo without a password: %v, want ErrPasswordNeeded", err)
	}
	if _, err := s.Join(ctx, bo, Target{InviteCode: strings.ToLower(r.InviteCode)}, "wrong", "192.0.2.1"); !errors.Is(err, lobby.ErrWrongPassword) {
		t.Fatalf("Bo's wrong guess: %v", err)
	}
	got, err := s.Join(ctx, bo, Target{InviteCode: strings.ToLower(r.InviteCode)}, "open sesame", "192.0.2.1")
	if err != nil || got.MatchID == "" {
		t.Fatalf("Bo with the right password: %+v, %v", got, err)
	}
	page, err := s.List(ctx, "", "", 100, "")
	if err != nil || len(page.Rooms) != 0 {
		t.Errorf("private room listed: %+v, %v", page, err)
	}
}

// Concurrent wrong guesses cannot beat the limits: the attempt is counted
// before the (slow) hash check, per player and per source address.
func TestConcurrentWrongPasswordsLimited(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, Config{MaxWrongPassword: 5, MaxWrongPerSource: 8, Argon2: Argon2{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	ctx := t.Context()
	r, err := s.Create(ctx, ana, Spec{Game: engine.Banqi, Variant: "standard", Private: true, Password: "open sesame"})
	if err != nil {
		t.Fatal(err)
	}
	guess := func(p lobby.Player, source, pw string) error {
		_, err := s.Join(ctx, p, Target{RoomID: r.ID}, pw, source)
		return err
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	wrong, limited := 0, 0
	for range 40 {
		wg.Go(func() {
			err := guess(cy, "198.51.100.7", "guess")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, lobby.ErrWrongPassword):
				wrong++
			case errors.Is(err, lobby.ErrTooManyAttempts):
				limited++
			default:
				t.Errorf("guess: %v", err)
			}
		})
	}
	wg.Wait()
	if wrong != 5 || limited != 35 {
		t.Fatalf("40 concurrent guesses by one player: %d wrong, %d limited; want 5 and 35", wrong, limited)
	}
	// Fresh identities from the same address count against the address
	// (8) from their first guess: 5 by cy already, then 3 more.
	want := []error{lobby.ErrWrongPassword, lobby.ErrWrongPassword, lobby.ErrWrongPassword, // g0: 6, 7, 8
		lobby.ErrTooManyAttempts, lobby.ErrTooManyAttempts, lobby.ErrTooManyAttempts, // g1: even its first guess
		lobby.ErrTooManyAttempts, lobby.ErrTooManyAttempts, lobby.ErrTooManyAttempts}
	for i, w := range want {
		p := lobby.Player{ID: fmt.Sprintf("p_guest%d", i/3), DisplayName: "G"}
		if err := guess(p, "198.51.100.7", "guess"); !errors.Is(err, w) {
			t.Fatalf("guess %d by %s: %v, want %v", i, p.ID, err, w)
		}
	}
	// Another address is not limited by that one's guesses.
	if err := guess(lobby.Player{ID: "p_other", DisplayName: "O"}, "203.0.113.1", "guess"); !errors.Is(err, lobby.ErrWrongPassword) {
		t.Fatalf("guess from another address: %v", err)
	}
}

// The holder of the right password is never locked out by guesses from
// other addresses: however many wrong guesses others made, the friend's
// first attempt with the right password gets in — the case of 20+ wrong
// guesses by a code holder. (Guesses from the friend's own address count
// against it from the first: 30 fresh guests at one address check at most
// 20 passwords.)
func TestRightPasswordNeverLockedOutByOthers(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, Config{MaxWrongPassword: 5, MaxWrongPerSource: 20})
	ctx := t.Context()
	r, err := s.Create(ctx, ana, Spec{Game: engine.Banqi, Variant: "standard", Private: true, Password: "open sesame"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 { // 12 guessers x 5, from three addresses, the friend's included
		p := lobby.Player{ID: fmt.Sprintf("p_attacker%d", i/5), DisplayName: "M"}
		src := []string{"198.51.100.1", "198.51.100.2", "192.0.2.51"}[i%3]
		if _, err := s.Join(ctx, p, Target{RoomID: r.ID}, "wrong", src); err == nil {
			t.Fatal("a wrong password got in")
		}
	}
	got, err := s.Join(ctx, bo, Target{InviteCode: r.InviteCode}, "open sesame", "192.0.2.50")
	if err != nil || got.MatchID == "" {
		t.Fatalf("the friend with the right password after 60 wrong guesses by others: %+v, %v", got, err)
	}
}

// Concurrent creates cannot beat the cap on open rooms per host.
func TestConcurrentCreatesHostLimit(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, Config{})
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make([]error, 30)
	for i := range errs {
		wg.Go(func() { _, errs[i] = s.Create(ctx, ana, Spec{Game: engine.Quoridor, Variant: "standard"}) })
	}
	wg.Wait()
	created := 0
	for _, err := range errs {
		switch {
		case err == nil:
			created++
		case !errors.Is(err, lobby.ErrTooManyAttempts):
			t.Fatalf("create: %v", err)
		}
	}
	if created != 5 {
		t.Fatalf("%d rooms created concurrently, want 5 (the cap)", created)
	}
	page, err := s.List(ctx, "", "", 100, "")
	if err != nil || len(page.Rooms) != 5 {
		t.Fatalf("listed %d rooms, %v", len(page.Rooms), err)
	}
}

func TestInviteCode(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, Config{})
	ctx := t.Context()
	seen := map[string]bool{}
	for range 5 {
		r, err := s.Create(ctx, lobby.Player{ID: lobby.NewID("p_"), DisplayName: "H"}, Spec{Game: engine.Quoridor, Variant: "standard"})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.InviteCode) != InviteLen || strings.Trim(r.InviteCode, inviteAlphabet) != "" || seen[r.InviteCode] {
			t.Fatalf("invite code %q: want %d fresh symbols of %q", r.InviteCode, InviteLen, inviteAlphabet)
		}
		seen[r.InviteCode] = true
		id, err := s.ByInvite(ctx, r.InviteCode[:4]+"-"+r.InviteCode[4:])
		if err != nil || id != r.ID {
			t.Fatalf("ByInvite = %q, %v; want %q", id, err, r.ID)
		}
	}
	if _, err := s.Join(ctx, bo, Target{InviteCode: "ZZZZZZZZ"}, "", "192.0.2.1"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("unknown code: %v, want ErrNotFound", err)
	}
}

func TestListLeaveAndHostLimit(t *testing.T) {
	t.Parallel()
	clock := time.Unix(1_800_000_000, 0)
	now := func() time.Time { return clock }
	s, _ := newStore(t, Config{MaxOpenPerHost: 3, Now: now})
	ctx := t.Context()
	var ids []string
	for i := range 3 {
		clock = clock.Add(time.Second)
		v := []string{"standard", "limit200", "standard"}[i]
		r, err := s.Create(ctx, ana, Spec{Game: engine.Quoridor, Variant: v})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	if _, err := s.Create(ctx, ana, Spec{Game: engine.Quoridor, Variant: "standard"}); !errors.Is(err, lobby.ErrTooManyAttempts) {
		t.Fatalf("fourth open room: %v, want ErrTooManyAttempts", err)
	}
	tests := []struct {
		name    string
		game    engine.Game
		variant string
		want    []string
	}{
		{"all, newest first", "", "", []string{ids[2], ids[1], ids[0]}},
		{"by game", engine.Quoridor, "", []string{ids[2], ids[1], ids[0]}},
		{"by variant", engine.Quoridor, "standard", []string{ids[2], ids[0]}},
		{"other game", engine.Banqi, "", nil},
	}
	for _, tt := range tests {
		var got []string
		token := ""
		for {
			page, err := s.List(ctx, tt.game, tt.variant, 1, token)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			for _, r := range page.Rooms {
				if r.InviteCode != "" {
					t.Errorf("%s: listing shows an invite code", tt.name)
				}
				got = append(got, r.ID)
			}
			if token = page.Next; token == "" {
				break
			}
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
	if err := s.Leave(ctx, bo.ID, ids[0]); !errors.Is(err, lobby.ErrPrecondition) {
		t.Errorf("stranger leaving: %v, want ErrPrecondition", err)
	}
	if err := s.Leave(ctx, ana.ID, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Join(ctx, bo, Target{RoomID: ids[0]}, "", "192.0.2.1"); !errors.Is(err, lobby.ErrPrecondition) {
		t.Errorf("joining a closed room: %v, want ErrPrecondition", err)
	}
	if _, err := s.Create(ctx, ana, Spec{Game: engine.Quoridor, Variant: "standard"}); err != nil {
		t.Errorf("after leaving one room the host may open another: %v", err)
	}
	// Open rooms past their TTL drop out of the listing.
	clock = clock.Add(31 * time.Minute)
	page, err := s.List(ctx, "", "", 10, "")
	if err != nil || len(page.Rooms) != 0 {
		t.Errorf("after the TTL: %d rooms, %v; want none", len(page.Rooms), err)
	}
}

func TestMatchFailureReopensRoom(t *testing.T) {
	t.Parallel()
	s, m := newStore(t, Config{})
	ctx := t.Context()
	r, err := s.Create(ctx, ana, Spec{Game: engine.Quoridor, Variant: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	m.Fail = errors.New("match service down")
	if _, err := s.Join(ctx, bo, Target{RoomID: r.ID}, "", "192.0.2.1"); err == nil {
		t.Fatal("join succeeded without a match")
	}
	got, err := s.Get(ctx, r.ID)
	if err != nil || got.Status != Open || got.Guest.ID != "" {
		t.Fatalf("after a failed match: %+v, %v; want open and empty", got, err)
	}
	m.Fail = nil
	if got, err = s.Join(ctx, bo, Target{RoomID: r.ID}, "", "192.0.2.1"); err != nil || got.MatchID == "" {
		t.Fatalf("retry: %+v, %v", got, err)
	}
}

func TestRoomKeyExpires(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, Config{})
	ctx := t.Context()
	r, err := s.Create(ctx, ana, Spec{Game: engine.Quoridor, Variant: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	ttl, err := s.rdb.PTTL(ctx, s.roomKey(r.ID)).Result()
	if err != nil || ttl <= 29*time.Minute || ttl > 30*time.Minute {
		t.Errorf("room TTL %v, %v; want about 30 min", ttl, err)
	}
	ttl, err = s.rdb.PTTL(ctx, s.key("invite", r.InviteCode)).Result()
	if err != nil || ttl <= 29*time.Minute {
		t.Errorf("invite TTL %v, %v", ttl, err)
	}
}

// Fresh guests from one address each guess once: the address's limit
// (20) holds from the first guess of each (issue 43: 30 guests checked 30
// passwords).
func TestFreshGuestsFromOneAddressLimited(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, Config{MaxWrongPassword: 5, MaxWrongPerSource: 20})
	ctx := t.Context()
	r, err := s.Create(ctx, ana, Spec{Game: engine.Banqi, Variant: "standard", Private: true, Password: "open sesame"})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i := range 30 {
		p := lobby.Player{ID: fmt.Sprintf("p_fresh%d", i), DisplayName: "F"}
		_, err := s.Join(ctx, p, Target{RoomID: r.ID}, fmt.Sprintf("guess %d", i), "198.51.100.9")
		switch {
		case errors.Is(err, lobby.ErrWrongPassword):
			checked++
		case !errors.Is(err, lobby.ErrTooManyAttempts):
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	if checked != 20 {
		t.Errorf("30 fresh guests from one address: %d passwords checked, want 20", checked)
	}
}
