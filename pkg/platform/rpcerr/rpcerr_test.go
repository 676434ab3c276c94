package rpcerr_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/pkg/platform/rpcerr"
)

var (
	errNotFound = errors.New("match not found")
	errIllegal  = errors.New("illegal ply")
	errConflict = errors.New("version conflict")
	errBroken   = errors.New("invariant broken")
)

var toStatus = rpcerr.Mapper{
	{Err: errNotFound, Code: codes.NotFound, Message: "match not found"},
	{Err: errIllegal, Code: codes.FailedPrecondition},
	{Err: errConflict, Code: codes.Aborted, Message: "match changed; reload and retry"},
	{Err: errBroken, Code: codes.Internal, Message: "must not be sent"},
}.Status

func TestMapperStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		give     error
		wantCode codes.Code
		wantMsg  string
	}{
		{name: "nil", give: nil, wantCode: codes.OK, wantMsg: ""},
		{name: "rule with message", give: fmt.Errorf("load m-1: %w", errNotFound), wantCode: codes.NotFound, wantMsg: "match not found"},
		{name: "rule with the error's text", give: fmt.Errorf("e9 (Q2.4): %w", errIllegal), wantCode: codes.FailedPrecondition, wantMsg: "e9 (Q2.4): illegal ply"},
		{name: "aborted", give: errConflict, wantCode: codes.Aborted, wantMsg: "match changed; reload and retry"},
		{name: "internal rule hides text", give: errBroken, wantCode: codes.Internal, wantMsg: "internal error"},
		{name: "unknown error hides text", give: errors.New("dial tcp 10.0.0.5:5432: password=hunter2"), wantCode: codes.Internal, wantMsg: "internal error"},
		{name: "status passes through", give: status.Error(codes.ResourceExhausted, "slow down"), wantCode: codes.ResourceExhausted, wantMsg: "slow down"},
		{name: "canceled", give: fmt.Errorf("wait: %w", context.Canceled), wantCode: codes.Canceled},
		{name: "deadline", give: context.DeadlineExceeded, wantCode: codes.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := status.Convert(toStatus(tt.give))
			if st.Code() != tt.wantCode {
				t.Errorf("code = %v, want %v", st.Code(), tt.wantCode)
			}
			if tt.wantMsg != "" && st.Message() != tt.wantMsg {
				t.Errorf("message = %q, want %q", st.Message(), tt.wantMsg)
			}
		})
	}
}

func TestInternalKeepsCauseForLogs(t *testing.T) {
	t.Parallel()
	cause := errors.New("disk full")
	err := rpcerr.Internal(cause)
	if !errors.Is(err, cause) {
		t.Error("Internal does not unwrap to its cause")
	}
	if st := status.Convert(err); st.Code() != codes.Internal || st.Message() != rpcerr.InternalMessage {
		t.Errorf("status = %v %q, want Internal %q", st.Code(), st.Message(), rpcerr.InternalMessage)
	}
}

// paramErr is a domain error with parameters.
type paramErr struct{ n int }

func (e *paramErr) Error() string { return fmt.Sprintf("ply %d refused", e.n) }
func (e *paramErr) Unwrap() error { return errConflict }
func (e *paramErr) Params() map[string]string {
	return map[string]string{"ply_number": fmt.Sprint(e.n)}
}

// Every mapped status but Internal carries its rule's reason, with the
// parameters of a Parameterized error in the chain; a mapping with a rule
// that has no reason, or an undefined one, does not pass Must.
func TestMapperReasons(t *testing.T) {
	t.Parallel()
	m := rpcerr.Mapper{
		{Err: errNotFound, Code: codes.NotFound, Reason: reason.MatchNotFound, Message: "match not found"},
		{Err: errConflict, Code: codes.FailedPrecondition, Reason: reason.StalePly},
		{Err: errBroken, Code: codes.Internal},
	}
	toStatus := rpcerr.Must(m).Status
	st := status.Convert(toStatus(fmt.Errorf("submit: %w", &paramErr{n: 7})))
	info, ok := reason.Of(st)
	if !ok || info.GetReason() != reason.StalePly || info.GetMetadata()["ply_number"] != "7" {
		t.Errorf("parameterized: %v %v", st.Code(), info)
	}
	if info, ok := reason.Of(status.Convert(toStatus(errNotFound))); !ok || info.GetReason() != reason.MatchNotFound || len(info.GetMetadata()) != 0 {
		t.Errorf("not found: %v", info)
	}
	if st := status.Convert(toStatus(errBroken)); len(st.Details()) != 0 {
		t.Errorf("Internal carries %v", st.Details())
	}
	for _, bad := range []rpcerr.Mapper{
		{{Err: errNotFound, Code: codes.NotFound}},
		{{Err: errNotFound, Code: codes.NotFound, Reason: "NO_SUCH_REASON"}},
	} {
		if len(bad.Problems()) != 1 {
			t.Errorf("Problems(%v) = %v, want one", bad, bad.Problems())
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Must(%v) did not panic", bad)
				}
			}()
			rpcerr.Must(bad)
		}()
	}
}
