// Package rpcerr maps domain errors to gRPC status errors, in one place per
// service, so that every handler answers the same error with the same code
// and Internal never carries raw error text to a client.
//
// A service's internal/rpc package declares its mapping once:
//
//	var toStatus = rpcerr.Must(rpcerr.Mapper{
//		{Err: match.ErrNotFound, Code: codes.NotFound, Reason: reason.MatchNotFound, Message: "match not found"},
//		{Err: engine.ErrIllegalMove, Code: codes.FailedPrecondition, Reason: reason.IllegalPly}, // err.Error() is for people
//	}).Status
//
// and every handler returns toStatus(err). Every status but Internal and
// Unknown carries a google.rpc.ErrorInfo (package reason) whose metadata are
// the error's parameters (Parameterized), so that clients render it in their
// player's language; Must refuses a mapping with a rule that has no reason.
package rpcerr

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/reason"
)

// InternalMessage is the only text a client ever sees for an Internal error.
const InternalMessage = "internal error"

// Rule maps every error that errors.Is Err to Code.
type Rule struct {
	Err  error
	Code codes.Code
	// Message is the status message; empty means the error's own text,
	// which must then be written for a person (sentinels, *engine.RuleError).
	// Ignored for codes.Internal and codes.Unknown, which never carry text.
	Message string
	// Reason is the ErrorInfo reason the status carries (a name defined in
	// package reason); required for every code but Internal and Unknown,
	// which never carry one. Its metadata are the parameters of the first
	// error in err's chain that is Parameterized.
	Reason string
}

// Parameterized is a domain error with parameters: its ErrorInfo's metadata
// (an illegal ply's rule and squares, the number a ply must carry).
type Parameterized interface {
	error
	Params() map[string]string
}

// Mapper is an ordered list of rules: the first that matches wins.
type Mapper []Rule

// Problems lists the rules that break the contract: a status a client may
// see (any code but Internal and Unknown) without a reason, or with a reason
// package reason does not define.
func (m Mapper) Problems() []string {
	var out []string
	for _, r := range m {
		switch {
		case r.Code == codes.Internal || r.Code == codes.Unknown:
		case r.Reason == "":
			out = append(out, fmt.Sprintf("rule for %q (%v) has no reason", r.Err, r.Code))
		case !reason.Defined(r.Reason):
			out = append(out, fmt.Sprintf("rule for %q (%v): reason %s is not defined in package reason", r.Err, r.Code, r.Reason))
		}
	}
	return out
}

// Must returns m, or panics when m has Problems: a mapping is written once
// per service, and every test of the service (and its start) runs this.
func Must(m Mapper) Mapper {
	if p := m.Problems(); len(p) > 0 {
		panic(fmt.Sprintf("rpcerr: %v", p))
	}
	return m
}

// Status returns the status error for err:
//   - nil for nil;
//   - err unchanged when it already carries a status (status.Error);
//   - Canceled or DeadlineExceeded for context errors;
//   - the first matching rule's code;
//   - Unavailable (reason UNAVAILABLE) for a store that could not be
//     reached (Unreachable);
//   - otherwise Internal with InternalMessage, still wrapping err so that
//     the logging interceptor (grpcserve) logs the cause.
func (m Mapper) Status(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return status.FromContextError(err).Err()
	}
	for _, r := range m {
		if !errors.Is(err, r.Err) {
			continue
		}
		if r.Code == codes.Internal || r.Code == codes.Unknown {
			return Internal(err)
		}
		msg := r.Message
		if msg == "" {
			msg = err.Error()
		}
		if r.Reason == "" {
			return status.Error(r.Code, msg)
		}
		var params map[string]string
		if p, ok := errors.AsType[Parameterized](err); ok {
			params = p.Params()
		}
		return reason.Error(r.Code, r.Reason, msg, params)
	}
	if Unreachable(err) {
		return reason.Error(codes.Unavailable, reason.Unavailable, "a store the service needs did not answer; retry shortly", nil)
	}
	return Internal(err)
}

// Internal returns an error that a client sees as codes.Internal with
// InternalMessage, and that unwraps to cause for logs.
func Internal(cause error) error {
	if cause == nil {
		cause = errors.New("unknown cause")
	}
	return &internalError{cause: cause}
}

type internalError struct{ cause error }

// Error returns the cause's text: for logs only, never sent.
func (e *internalError) Error() string { return e.cause.Error() }

// Unwrap returns the cause.
func (e *internalError) Unwrap() error { return e.cause }

// GRPCStatus returns Internal with InternalMessage.
func (e *internalError) GRPCStatus() *status.Status {
	return status.New(codes.Internal, InternalMessage)
}
