// Package rpcerr maps domain errors to gRPC status errors, in one place per
// service, so that every handler answers the same error with the same code
// and Internal never carries raw error text to a client.
//
// A service's internal/rpc package declares its mapping once:
//
//	var toStatus = rpcerr.Mapper{
//		{Err: match.ErrNotFound, Code: codes.NotFound, Message: "match not found"},
//		{Err: engine.ErrIllegalMove, Code: codes.FailedPrecondition}, // err.Error() is for people
//	}.Status
//
// and every handler returns toStatus(err).
package rpcerr

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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
}

// Mapper is an ordered list of rules: the first that matches wins.
type Mapper []Rule

// Status returns the status error for err:
//   - nil for nil;
//   - err unchanged when it already carries a status (status.Error);
//   - Canceled or DeadlineExceeded for context errors;
//   - the first matching rule's code;
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
		return status.Error(r.Code, msg)
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
