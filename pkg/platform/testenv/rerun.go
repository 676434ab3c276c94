package testenv

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// ScriptsTwice is a go-redis hook that runs every script call (EVAL,
// EVALSHA) two times, as go-redis does when the reply to the first is lost
// (a read timeout on a busy machine, a dropped connection): the script
// ran, its caller did not hear of it, and the client sends it again. Add
// it to a client with AddHook; Reruns counts the scripts that ran twice,
// so that a test can tell that it tried.
type ScriptsTwice struct{ reruns atomic.Int64 }

// Reruns is the number of script calls that ran a first, unheard time.
func (h *ScriptsTwice) Reruns() int64 { return h.reruns.Load() }

// DialHook implements redis.Hook.
func (*ScriptsTwice) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessPipelineHook implements redis.Hook: pipelines pass unchanged.
func (*ScriptsTwice) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// ProcessHook implements redis.Hook.
func (h *ScriptsTwice) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := strings.ToLower(cmd.Name()); name == "eval" || name == "evalsha" {
			if err := next(ctx, redis.NewCmd(ctx, cmd.Args()...)); err == nil {
				h.reruns.Add(1)
			}
		}
		return next(ctx, cmd)
	}
}
