package ratelimit_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/testenv"
)

// loseReplies makes the scripts' replies fail after Redis ran them (a
// reply lost to a cancelled call or a dropped connection) while on.
type loseReplies struct{ on atomic.Bool }

func (h *loseReplies) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *loseReplies) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *loseReplies) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if name := strings.ToLower(cmd.Name()); h.on.Load() && (name == "evalsha" || name == "eval") {
			err = errors.New("reply lost")
			cmd.SetErr(err)
		}
		return err
	}
}

// An acquire whose script ran in Redis but whose reply never came back
// (the client cancelled its stream at that moment, or the connection
// dropped) opened no stream: it must leave no member behind, else the
// player loses a slot for as long as the instance lives (its heartbeat
// keeps the member counting, every acquire renews the key's expiry), and
// Max such calls lock the player out with no stream open.
func TestStreamsLostReplyLeavesNoSlot(t *testing.T) {
	_, prefix := testenv.Redis(t, "rl")
	lossy := testenv.OpenRedis(t, "")
	hook := &loseReplies{}
	lossy.AddHook(hook)
	s := ratelimit.NewStreams(lossy, prefix, "match streams", 2)
	t.Cleanup(s.Stop)
	ctx := t.Context()
	hook.on.Store(true)
	for i := range 2 {
		if _, err := s.Acquire(ctx, "p1"); status.Code(err) != codes.Unavailable {
			t.Fatalf("acquire %d with its reply lost: %v, want Unavailable", i+1, err)
		}
	}
	hook.on.Store(false)
	if n, err := s.Open(ctx, "p1"); err != nil || n != 0 {
		t.Fatalf("open after two failed acquires: %d, %v; want 0", n, err)
	}
	rel, err := s.Acquire(ctx, "p1")
	if err != nil {
		t.Fatalf("first real stream after lost replies: %v", err)
	}
	rel()
}

// A lost reply while Redis is also unreachable for the clean-up: the
// member is removed by the instance's next heartbeat.
func TestStreamsLostReplyCleanedByBeat(t *testing.T) {
	_, prefix := testenv.Redis(t, "rl")
	lossy := testenv.OpenRedis(t, "")
	hook := &failAfterScript{}
	lossy.AddHook(hook)
	s := ratelimit.NewStreams(lossy, prefix, "match streams", 1)
	s.TTL = time.Hour // no heartbeat of its own during the test
	t.Cleanup(s.Stop)
	ctx := t.Context()
	keep, err := s.Acquire(ctx, "p2") // keeps the instance alive
	if err != nil {
		t.Fatal(err)
	}
	defer keep()
	hook.on.Store(true)
	if _, err := s.Acquire(ctx, "p1"); status.Code(err) != codes.Unavailable {
		t.Fatalf("acquire with its reply lost: %v, want Unavailable", err)
	}
	hook.on.Store(false)
	if err := s.Beat(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Open(ctx, "p1"); err != nil || n != 0 {
		t.Fatalf("open after a beat: %d, %v; want 0", n, err)
	}
}

// failAfterScript loses the script's reply and then fails every command
// until turned off (Redis unreachable right after running the script).
type failAfterScript struct {
	on  atomic.Bool
	ran atomic.Bool
}

func (h *failAfterScript) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *failAfterScript) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *failAfterScript) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !h.on.Load() {
			return next(ctx, cmd)
		}
		name := strings.ToLower(cmd.Name())
		if name == "evalsha" || name == "eval" {
			_ = next(ctx, cmd)
		}
		err := errors.New("connection refused")
		cmd.SetErr(err)
		return err
	}
}
