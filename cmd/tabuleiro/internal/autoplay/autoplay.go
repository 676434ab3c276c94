// Package autoplay plays seats of a match without a person, through the
// same public API as the terminal client: random legal plies for CI's
// `tabuleiro play --auto`, or the plies of a record for `tabuleiro replay`.
package autoplay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/ratelimit"
)

// ErrRecordEnded is returned by a record's Chooser when the record has no
// ply left for the position.
var ErrRecordEnded = errors.New("the record ends here")

// Chooser picks the ply to play in view; legal is the legal plies when
// the chooser asked for them (NeedsLegal), nil otherwise.
type Chooser interface {
	Choose(view *gamev1.GameView, legal []*matchv1.LegalPly) (string, error)
	NeedsLegal() bool
}

// Random picks uniformly among the legal plies. It is safe for concurrent
// use, and deterministic for a seed as long as one goroutine uses it.
func Random(seed uint64) Chooser {
	return &random{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

type random struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (c *random) NeedsLegal() bool { return true }

func (c *random) Choose(_ *gamev1.GameView, legal []*matchv1.LegalPly) (string, error) {
	if len(legal) == 0 {
		return "", errors.New("no legal ply")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return legal[c.r.IntN(len(legal))].GetNotation(), nil
}

// Record plays the plies of a record in order: ply n is plies[n-1].
func Record(plies []string) Chooser { return record(plies) }

type record []string

func (record) NeedsLegal() bool { return false }

func (r record) Choose(view *gamev1.GameView, _ []*matchv1.LegalPly) (string, error) {
	n := int(view.GetPlyCount())
	if n >= len(r) {
		return "", ErrRecordEnded
	}
	return r[n], nil
}

// Result is how a seat's game went.
type Result struct {
	Seat    gamev1.Seat
	Outcome *gamev1.Outcome
	Plies   int32
	// Final is the last view the seat saw.
	Final *gamev1.GameView
	// Layout is the Banqi layout revealed at the end.
	Layout string
}

// Seat joins matchID as p and plays its seat with choose until the match
// ends, then returns how it ended. A refused ply is an error: the choosers
// only play legal plies (or a record's, which must be legal). When the
// chooser runs out (ErrRecordEnded) it returns the game as it stands.
func Seat(ctx context.Context, c *client.Client, p client.Player, matchID string, choose Chooser) (Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := c.Join(ctx, p, matchID, 0)
	if err != nil {
		return Result{}, err
	}
	defer st.Close()
	var (
		res       Result
		view      *gamev1.GameView
		submitted int32
	)
	for {
		r, err := st.Recv()
		if errors.Is(err, io.EOF) && res.Outcome != nil {
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("match %s: %w", matchID, err)
		}
		switch {
		case r.GetSnapshot() != nil:
			s := r.GetSnapshot()
			res.Seat, view = s.GetYourSeat(), s.GetView()
			if s.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED {
				res.Outcome, res.Final, res.Plies, res.Layout = s.GetOutcome(), view, view.GetPlyCount(), s.GetLayout()
				return res, nil
			}
		case r.GetEvent().GetPlyPlayed() != nil:
			view = r.GetEvent().GetPlyPlayed().GetView()
		case r.GetEvent().GetGameEnded() != nil:
			ge := r.GetEvent().GetGameEnded()
			res.Outcome, res.Layout = ge.GetOutcome(), ge.GetLayout()
			if ge.GetView() != nil {
				view = ge.GetView()
			}
			res.Final, res.Plies = view, view.GetPlyCount()
			return res, nil
		case r.GetPlyRejected() != nil:
			pr := r.GetPlyRejected()
			return res, fmt.Errorf("ply %d %s refused: %s %s", pr.GetPlyNumber(), pr.GetNotation(), pr.GetRule(), pr.GetReason())
		case r.GetActionRejected() != nil:
			return res, fmt.Errorf("action refused: %s", r.GetActionRejected().GetReason())
		}
		if view == nil || view.GetToMove() != res.Seat || res.Seat == gamev1.Seat_SEAT_UNSPECIFIED {
			continue
		}
		n := view.GetPlyCount() + 1
		if n <= submitted {
			continue
		}
		var legal []*matchv1.LegalPly
		if choose.NeedsLegal() {
			lr, err := retryExhausted(ctx, func() (*matchv1.ListLegalPliesResponse, error) {
				return c.Match.ListLegalPlies(p.Context(ctx), &matchv1.ListLegalPliesRequest{MatchId: matchID, ExpectedPlyNumber: n})
			})
			if err != nil {
				return res, fmt.Errorf("legal plies of %s at ply %d: %w", matchID, n, err)
			}
			legal = lr.GetPlies()
		}
		ply, err := choose.Choose(view, legal)
		if errors.Is(err, ErrRecordEnded) {
			res.Outcome, res.Final, res.Plies = view.GetOutcome(), view, view.GetPlyCount()
			return res, nil
		}
		if err != nil {
			return res, err
		}
		submitted = n
		if err := st.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: n, Notation: ply}}}); err != nil {
			return res, fmt.Errorf("submit ply %d: %w", n, err)
		}
	}
}

// retryExhausted makes call, and again while the server refuses it with
// RESOURCE_EXHAUSTED (its per-player call rate: a seat against an
// instant bot on a remote server asks for legal plies faster than a
// person does), after the delay the refusal's RetryInfo gives (1 s
// without one), up to 10 times.
func retryExhausted[T any](ctx context.Context, call func() (T, error)) (T, error) {
	for attempt := 0; ; attempt++ {
		v, err := call()
		if err == nil || status.Code(err) != codes.ResourceExhausted || attempt == 9 {
			return v, err
		}
		wait := time.Second
		if d, ok := ratelimit.RetryDelay(err); ok {
			wait = min(max(d, 10*time.Millisecond), 10*time.Second)
		}
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(wait):
		}
	}
}
