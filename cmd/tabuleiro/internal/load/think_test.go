package load

import (
	"context"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"google.golang.org/grpc"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// fakeMatch serves one Play stream: what the player sends arrives on
// sent, what the test puts on recv is what the player receives.
type fakeMatch struct {
	matchv1.MatchServiceClient
	sent chan *matchv1.PlayRequest
	recv chan *matchv1.PlayResponse
}

func (f *fakeMatch) Play(ctx context.Context, _ ...grpc.CallOption) (matchv1.MatchService_PlayClient, error) {
	return &fakePlay{f: f, ctx: ctx}, nil
}

type fakePlay struct {
	grpc.ClientStream
	f   *fakeMatch
	ctx context.Context
}

func (p *fakePlay) Send(m *matchv1.PlayRequest) error {
	select {
	case p.f.sent <- m:
		return nil
	case <-p.ctx.Done():
		return io.EOF
	}
}

func (p *fakePlay) Recv() (*matchv1.PlayResponse, error) {
	select {
	case m := <-p.f.recv:
		return m, nil
	case <-p.ctx.Done():
		return nil, p.ctx.Err()
	}
}

// A seat that thinks before its ply answers a probe at once: a probe
// answered only after the pause made the server's round-trip estimate of
// every simulated player the pause's length. (The pause is an hour: the
// answer must not wait for it.)
func TestThinkingSeatAnswersProbesAtOnce(t *testing.T) {
	pos, err := games.New(engine.Quoridor, "", "")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeMatch{sent: make(chan *matchv1.PlayRequest, 8), recv: make(chan *matchv1.PlayResponse, 8)}
	r := &runner{cfg: Config{Think: time.Hour}, errs: map[string]int64{}, samples: map[string]string{}}
	for i := range r.sent {
		r.sent[i].m = map[string]time.Time{}
	}
	g := &seatGame{log: SeatLog{MatchID: "m1", Seat: gamev1.Seat_SEAT_FIRST, Sent: map[int32]string{}}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.stream(ctx, f, g, rand.New(rand.NewPCG(1, 2)))
		done <- err
	}()
	if m := <-f.sent; m.GetJoin() == nil {
		t.Fatalf("first message %v, want a join", m)
	}
	f.recv <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Snapshot{Snapshot: &matchv1.Match{
		View: &gamev1.GameView{Encoding: pos.View(engine.First).Encode(), ToMove: gamev1.Seat_SEAT_FIRST},
	}}}
	f.recv <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Probe{Probe: &matchv1.Probe{Id: 7}}}
	select {
	case m := <-f.sent:
		if m.GetProbeAnswer().GetId() != 7 {
			t.Fatalf("sent %v during the pause, want the probe's answer", m)
		}
	case err := <-done:
		t.Fatalf("stream ended: %v", err)
	}
	cancel()
	<-done
}

// Every player can hold a stream at once: the servers allow 64 streams a
// connection and make the others wait, so the tool opens enough
// connections (48 streams each) unless told how many.
func TestConnsForEveryPlayersStream(t *testing.T) {
	for _, c := range []struct{ set, players, addrs, want int }{
		{0, 2, 1, 4},     // at least 4
		{0, 2000, 1, 42}, // 2000/48 rounded up
		{0, 2000, 3, 14}, // 667 a match instance
		{0, 4000, 2, 42}, // 2000 a lobby instance
		{7, 4000, 1, 7},  // as told
		{0, 200, 1, 5},   // 200/48 rounded up
		{0, 192, 1, 4},   // exactly 4 x 48
		{0, 1000, 0, 21}, // no address: never divides by 0
	} {
		if got := connsFor(c.set, c.players, c.addrs); got != c.want {
			t.Errorf("connsFor(%d, %d, %d) = %d, want %d", c.set, c.players, c.addrs, got, c.want)
		}
	}
}
